#include "../../detail/cxx20.hpp"
#if FASTREAD_CXX20 && !defined(FASTREAD_DUPLICATES_DETAIL_READ_HPP)
#define FASTREAD_DUPLICATES_DETAIL_READ_HPP

/// @file
/// The duplicate finder's reading: candidates opened and checked against what the walk saw,
/// small files read whole, and the XXH3-128 hashes (first and last 4 KiB, whole file).

#include "../../detail/posix.hpp"
#include "cache.hpp" // also xxHash, FASTREAD_HAVE_XXHASH
#include "cache_miss_probe.hpp"
#include "dir.hpp"
#include "walk.hpp"

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <thread>
#include <tuple>
#include <unordered_set>
#include <utility>
#include <vector>

namespace fastread::detail {

/// Reads candidates for the comparing stages, from threads that each own a `worker`.
class duplicate_reader : protected duplicate_walk {
  public:
    using duplicate_walk::duplicate_walk;

  protected:
    // Still the file the walk saw: same device, inode, size and modification time.
    static bool unchanged(const dup_file& f, const file_info& now) noexcept {
        return now.device == f.info.device && now.inode == f.info.inode &&
               now.size == f.info.size && now.mtime_ns == f.info.mtime_ns;
    }

    // What one reading thread owns: where its errors and groups go (the current job's
    // output), and its comparison buffer (set_bytes), allocated when first needed. The
    // reading functions below are const and write only here, so threads run them at once.
    struct worker {
        std::vector<duplicate_error>* errors = nullptr;
        std::vector<std::vector<std::size_t>>* groups = nullptr;
        cache_miss_probe* miss_probe = nullptr;
        std::vector<hash_cache_entry>* learned = nullptr; // hashes to keep in the cache
        std::unique_ptr<char[]> buffers;                  // set_bytes, allocated when first needed

        bool fail(const std::string& path, int err, const char* operation) {
            errors->push_back(duplicate_error{
                path_of(path), std::error_code(err, std::generic_category()), operation});
            return false;
        }
        char* buffer_a() {
            if (!buffers) {
                buffers.reset(new char[set_bytes]);
            }
            return buffers.get();
        }
        char* buffer_b() { return buffer_a() + block_bytes; }

        // Room for `n` bytes of small files' contents, kept between jobs.
        char* contents(std::size_t n) {
            if (n > contents_size) {
                contents_buffer.reset(new char[n]);
                contents_size = n;
            }
            return contents_buffer.get();
        }
        std::unique_ptr<char[]> contents_buffer;
        std::size_t contents_size = 0;
    };

    // Opens a candidate read-only (never as a controlling terminal, never waiting on a FIFO
    // that replaced it): the descriptor, or -1 with errno set.
    static int open_candidate(const dup_file& f) { return open_utf8(f.path, open_mode::read_only); }

    // Opens a candidate and checks that it is still the file the walk saw; else reports it.
    // With `out_of_descriptors`, running out of descriptors (EMFILE, ENFILE) is not
    // reported but flagged there, for the caller to retry with fewer files open.
    unique_fd open_unchanged(const dup_file& f, worker& w,
                             bool* out_of_descriptors = nullptr) const {
        const int fd = open_candidate(f);
        if (fd < 0) {
            if (out_of_descriptors != nullptr && (errno == EMFILE || errno == ENFILE)) {
                *out_of_descriptors = true;
                return unique_fd();
            }
            w.fail(f.path, errno, "open");
            return unique_fd();
        }
        unique_fd guard(fd);
        if (!still_same(f, fd, w)) {
            return unique_fd();
        }
        return guard;
    }

    bool still_same(const dup_file& f, int fd, worker& w) const {
        fastread::error err;
        const file_info st = stat_fd(fd, {}, err);
        if (err.code()) {
            return w.fail(f.path, err.code().value(), "stat");
        }
        if (!unchanged(f, st)) {
            return w.fail(f.path, e_changed, "changed");
        }
        return true;
    }

    // Reads a small file whole into `dst` (room for size + 1 bytes) with one open and, in
    // the usual case, one pread of size + 1 bytes: a regular file that returns exactly its
    // size is at its end, so neither a second read nor an fstat is needed (the bytes
    // compared are the bytes read; a file that grew or shrank since the walk is reported as
    // changed). False, with the reason reported, if it cannot be read or changed size.
    bool load_whole(const dup_file& f, char* dst, worker& w) const {
        const int fd = open_candidate(f);
        if (fd < 0) {
            return w.fail(f.path, errno, "open");
        }
        unique_fd guard(fd);
        const auto size = static_cast<std::size_t>(f.info.size);
        const ssize_t first = pread_probing(fd, dst, size + 1, 0, w.miss_probe); // +1: see growth
        if (first < 0) {
            return w.fail(f.path, errno, "read");
        }
        auto got = static_cast<std::size_t>(first);
        if (got != 0 && got < size) { // a short read before the expected end: keep reading
            int err = 0;
            got +=
                pread_full_probing(fd, dst + got, size + 1 - got, got, f.path, w.miss_probe, err);
            if (err != 0) {
                return w.fail(f.path, err, "read");
            }
        }
        if (got != size) {
            return w.fail(f.path, e_changed, "changed");
        }
        // The file opened is the one the walk saw (a rename or a new link since would put
        // another file's bytes under its name), and it was not modified while read.
        return still_same(f, fd, w);
    }

#if FASTREAD_HAVE_XXHASH
    using digest = hash_128; // cache.hpp

    // The probe hash of a file of `size` bytes from its first bytes `head` and its last
    // bytes `tail` (probe_bytes each; when size <= 2 * probe_bytes, `head` holds the whole
    // file and `tail` is not read): XXH3-128 of the first and last 4 KiB, or of the whole
    // file when it is 8 KiB or less.
    static digest probe_digest(const char* head, const char* tail, std::uint64_t size) {
        XXH3_state_t state;
        XXH3_128bits_reset(&state);
        if (size <= 2 * probe_bytes) {
            XXH3_128bits_update(&state, head, static_cast<std::size_t>(size));
        } else {
            XXH3_128bits_update(&state, head, probe_bytes);
            XXH3_128bits_update(&state, tail, probe_bytes);
        }
        const XXH128_hash_t h = XXH3_128bits_digest(&state);
        return {h.low64, h.high64};
    }

    // The probe hash (probe_digest) of a candidate, reading its first and last 4 KiB.
    bool probe_hash(const dup_file& f, digest& out, worker& w) const {
        unique_fd fd = open_unchanged(f, w);
        if (!fd) {
            return false;
        }
        char buf[2 * probe_bytes];
        const std::uint64_t size = f.info.size;
        int err = 0;
        bool whole = false;
        if (size <= 2 * probe_bytes) {
            whole = pread_full_probing(fd.get(), buf, static_cast<std::size_t>(size), 0, f.path,
                                       w.miss_probe, err) == size;
        } else {
            whole = pread_full_probing(fd.get(), buf, probe_bytes, 0, f.path, w.miss_probe, err) ==
                        probe_bytes &&
                    err == 0 &&
                    pread_full_probing(fd.get(), buf + probe_bytes, probe_bytes, size - probe_bytes,
                                       f.path, w.miss_probe, err) == probe_bytes;
        }
        if (err != 0) {
            return w.fail(f.path, err, "read");
        }
        if (!whole) {
            return w.fail(f.path, e_changed, "changed");
        }
        out = probe_digest(buf, buf + probe_bytes, size);
        return true;
    }

    // XXH3-128 of a small file, read whole; its probe hash too when `probe` is not null.
    bool small_hash(const dup_file& f, digest& out, worker& w, digest* probe = nullptr) const {
        const auto size = static_cast<std::size_t>(f.info.size);
        char* const dst = w.contents(size + 1);
        if (!load_whole(f, dst, w)) {
            return false;
        }
        const XXH128_hash_t h = XXH3_128bits(dst, size);
        out = {h.low64, h.high64};
        if (probe != nullptr) {
            *probe = probe_digest(dst, dst + (size > probe_bytes ? size - probe_bytes : 0), size);
        }
        return true;
    }

    // XXH3-128 of the whole file, read in 64 KiB blocks; its probe hash too when `probe` is
    // not null (from the first block and the last 4 KiB read).
    bool full_hash(const dup_file& f, digest& out, worker& w, digest* probe = nullptr) const {
        unique_fd fd = open_unchanged(f, w);
        if (!fd) {
            return false;
        }
        advise(fd.get(), file_advice::sequential);
        XXH3_state_t state;
        XXH3_128bits_reset(&state);
        char head[probe_bytes];
        char tail[probe_bytes];
        std::uint64_t total = 0;
        {
            for (std::uint64_t offset = 0;; offset += block_bytes) {
                const char* const block = w.buffer_a();
                int err = 0;
                const std::size_t n = pread_full_probing(fd.get(), w.buffer_a(), block_bytes,
                                                         offset, f.path, w.miss_probe, err);
                if (err != 0) {
                    return w.fail(f.path, err, "read");
                }
                XXH3_128bits_update(&state, block, n);
                // The first and last probe_bytes of what was read so far.
                if (offset == 0) {
                    std::memcpy(head, block, std::min(n, probe_bytes));
                }
                if (n >= probe_bytes) {
                    std::memcpy(tail, block + n - probe_bytes, probe_bytes);
                } else if (n != 0) {
                    std::memmove(tail, tail + n, probe_bytes - n);
                    std::memcpy(tail + probe_bytes - n, block, n);
                }
                total += n;
                if (n < block_bytes) {
                    break;
                }
            }
        }
        if (total != f.info.size) {
            return w.fail(f.path, e_changed, "changed");
        }
        const XXH128_hash_t h = XXH3_128bits_digest(&state);
        out = {h.low64, h.high64};
        if (probe != nullptr) {
            *probe = probe_digest(head, tail, total);
        }
        // Not modified while read (the hash may be kept in the cache under the walk's key).
        return still_same(f, fd.get(), w);
    }

    // Splits `group` (indices into files_) by `hash`; files that fail drop out.
    template <class Hash>
    std::vector<std::vector<std::size_t>> split_by(const std::vector<std::size_t>& group,
                                                   Hash hash) const {
        std::vector<std::pair<digest, std::size_t>> keyed;
        keyed.reserve(group.size());
        for (std::size_t i : group) {
            digest d;
            if (hash(files_[i], d)) {
                keyed.emplace_back(d, i);
            }
        }
        std::sort(keyed.begin(), keyed.end());
        std::vector<std::vector<std::size_t>> out;
        for (std::size_t k = 0; k < keyed.size();) {
            std::size_t e = k + 1;
            while (e < keyed.size() && keyed[e].first == keyed[k].first) {
                ++e;
            }
            if (e - k >= 2) {
                out.emplace_back();
                for (std::size_t j = k; j < e; ++j) {
                    out.back().push_back(keyed[j].second);
                }
            }
            k = e;
        }
        return out;
    }
#endif

    enum class verdict {
        equal,
        different,
        first_left_out,  // the first file could not be read, or changed: reported, left out
        second_left_out, // the same for the second file
    };

    // pread of up to `n` bytes at `offset`; false (reported) on an I/O error.
    static bool read_part(const dup_file& f, int fd, char* dst, std::size_t n, std::uint64_t offset,
                          std::size_t& got, worker& w) {
        int err = 0;
        got = pread_full_probing(fd, dst, n, offset, f.path, w.miss_probe, err);
        return err == 0 || w.fail(f.path, err, "read");
    }
};

} // namespace fastread::detail

#endif // FASTREAD_DUPLICATES_DETAIL_READ_HPP
