#include "../../detail/cxx20.hpp"
#if FASTREAD_CXX20 && !defined(FASTREAD_DUPLICATES_DETAIL_CACHE_HPP)
#define FASTREAD_DUPLICATES_DETAIL_CACHE_HPP

/// @file
/// The duplicate finder's hash cache (`duplicate_options::cache`): the XXH3-128 hashes it
/// computed of each file (the probe hash of its first and last 4 KiB, its whole-file hash, or
/// both), keyed by what changes when the file does, kept in one file between runs so that a
/// re-run over an unchanged tree reads no file data.
///
/// The file (all integers little-endian):
///
/// | bytes | what |
/// |---|---|
/// | 0-15 | `FASTREAD-HASHES\n` |
/// | 16-19 | format version (2; a file of version 1 held whole-file hashes only) |
/// | 20-23 | hash version: the xxHash library's `XXH_VERSION_NUMBER` |
/// | 24-39 | the hash's name, `XXH3-128`, padded with zero bytes |
/// | 40-47 | entries, n |
/// | 48-63 | zero |
/// | 64 + 80 i | entry i: device, inode, size, mtime ns, ctime ns, flags, probe, whole |
/// | 64 + 80 n | XXH3-128 of every byte before it (low, high) |
///
/// An entry's fields are 8 bytes each (the two hashes 16: low, high 64 bits); size in bytes,
/// times in nanoseconds since the epoch.
///
/// An entry's flags: bit 0, it holds a probe hash; bit 1, a whole-file hash (the other hash
/// is then zero); other bits zero. The probe hash is XXH3-128 of the first 4 KiB followed by
/// the last 4 KiB (of the whole file when it is 8 KiB or less); the whole-file hash,
/// XXH3-128 of every byte.
///
/// A file with another format version, hash name or hash version is ignored whole (its hashes
/// cannot be compared with this build's); a file that is shorter or longer than its count says, or
/// whose checksum does not match, is corrupt: reported and rebuilt, never trusted. It is replaced
/// atomically (a temporary file, fsync, rename), so a crash leaves the old cache or the new.

#include "../../detail/atomic_file.hpp"
#include "../../detail/posix.hpp"
#include "../../detail/rw.hpp"
#include "files.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#if !defined(FASTREAD_NO_XXHASH) && __has_include(<xxhash.h>)
/// 1 where find_duplicates hashes with xxHash (XXH3, `<xxhash.h>` found and
/// FASTREAD_NO_XXHASH not defined), else 0 (it then compares without hashing, and has no
/// hash cache).
#define FASTREAD_HAVE_XXHASH 1
#if !defined(XXH_INLINE_ALL)
#define XXH_INLINE_ALL
#endif
#include <xxhash.h>
#else
/// 0: no xxHash (see above).
#define FASTREAD_HAVE_XXHASH 0
#endif

namespace fastread::detail {

/// What identifies one state of a file: a change to its contents changes its ctime (and,
/// through write(2), its mtime); a replacement changes its inode or device.
struct hash_cache_key {
    std::uint64_t device = 0, inode = 0, size = 0;
    std::int64_t mtime_ns = 0, ctime_ns = 0;
    bool operator==(const hash_cache_key&) const = default;
};

/// The key of what `stat` said of a file.
inline hash_cache_key cache_key_of(const file_info& info) noexcept {
    return {info.device, info.inode, info.size, info.mtime_ns, info.ctime_ns};
}

/// An XXH3-128 hash: low, high 64 bits.
using hash_128 = std::pair<std::uint64_t, std::uint64_t>;

/// What the cache holds of one file under its key: its probe hash (first and last 4 KiB),
/// its whole-file hash, or both.
struct hash_cache_entry {
    hash_cache_key key;
    bool has_probe = false;
    bool has_whole = false;
    hash_128 probe{0, 0};
    hash_128 whole{0, 0};
    bool operator==(const hash_cache_entry&) const = default;
};

/// The cache's entries, by (device, inode): at most one state of each file.
class hash_cache {
  public:
    /// What load() found.
    enum class state {
        missing, ///< no cache file yet: an empty cache
        loaded,  ///< its entries are used
        stale,   ///< another hash or hash version: ignored whole, rewritten by save()
        corrupt, ///< truncated, extended or altered: ignored whole, rewritten by save()
    };

    static constexpr std::size_t header_bytes = 64;
    static constexpr std::size_t entry_bytes = 80;
    static constexpr std::size_t trailer_bytes = 16;
    static constexpr std::uint32_t format_version = 2;
    static constexpr char hash_name[] = "XXH3-128";
#if FASTREAD_HAVE_XXHASH
    static constexpr std::uint32_t current_hash_version = XXH_VERSION_NUMBER;
#else
    static constexpr std::uint32_t current_hash_version = 0;
#endif

    /// Reads the cache file at `path`. `hash_version`: the version this build's hash has
    /// (tests pass another to make a stale file). Throws std::system_error naming the path
    /// if it exists but cannot be read.
    state load(const std::filesystem::path& path,
               std::uint32_t hash_version = current_hash_version) {
        error err;
        const state st = load(path, err, hash_version);
        throw_if(err);
        return st;
    }

    /// load, without throwing: on an error `err` holds it (the state is then `missing`).
    state load(const std::filesystem::path& path, error& err,
               std::uint32_t hash_version = current_hash_version) {
        entries_.clear();
        std::string bytes;
        {
            std::error_code exists_error;
            if (!std::filesystem::exists(std::filesystem::symlink_status(path, exists_error))) {
                return state::missing; // (what could not be looked at fails to open below)
            }
            const unique_fd fd = open_read_only(path, 0, err);
            if (!fd) {
                return state::missing;
            }
            const file_info info = stat_fd(fd.get(), path, err);
            if (err.code()) {
                return state::missing;
            }
            if (!info.regular) {
                err = os_error(info.directory ? EISDIR : EINVAL, "not a regular file:", path);
                return state::missing;
            }
            // The file's own size justifies the allocation.
            bytes.resize(static_cast<std::size_t>(info.size));
            const std::size_t got = pread_full(fd.get(), bytes.data(), bytes.size(), 0, path, err);
            if (err.code()) {
                return state::missing;
            }
            if (got != bytes.size()) {
                return state::corrupt; // shrank while read
            }
        }
        if (bytes.size() < header_bytes + trailer_bytes ||
            std::memcmp(bytes.data(), magic, 16) != 0) {
            return state::corrupt;
        }
        const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
        const std::uint64_t count = get64(p + 40);
        if (count > (bytes.size() - header_bytes - trailer_bytes) / entry_bytes ||
            header_bytes + count * entry_bytes + trailer_bytes != bytes.size()) {
            return state::corrupt;
        }
        const std::size_t body = bytes.size() - trailer_bytes;
        if (checksum(bytes.data(), body) != std::pair{get64(p + body), get64(p + body + 8)}) {
            return state::corrupt;
        }
        char name[16] = {};
        std::memcpy(name, hash_name, sizeof hash_name);
        if (get32(p + 16) != format_version || get32(p + 20) != hash_version ||
            std::memcmp(p + 24, name, 16) != 0) {
            return state::stale;
        }
        entries_.reserve(static_cast<std::size_t>(count));
        for (std::uint64_t i = 0; i < count; ++i) {
            const unsigned char* e = p + header_bytes + i * entry_bytes;
            hash_cache_entry entry;
            entry.key = {get64(e), get64(e + 8), get64(e + 16),
                         static_cast<std::int64_t>(get64(e + 24)),
                         static_cast<std::int64_t>(get64(e + 32))};
            const std::uint64_t flags = get64(e + 40);
            if ((flags & ~std::uint64_t{3}) != 0 || flags == 0) {
                entries_.clear(); // a checksum that matches a body no writer made
                return state::corrupt;
            }
            entry.has_probe = (flags & 1) != 0;
            entry.has_whole = (flags & 2) != 0;
            if (entry.has_probe) {
                entry.probe = {get64(e + 48), get64(e + 56)};
            }
            if (entry.has_whole) {
                entry.whole = {get64(e + 64), get64(e + 72)};
            }
            entries_[{entry.key.device, entry.key.inode}] = entry;
        }
        return state::loaded;
    }

    /// What is kept for a file in state `key`, or null (unknown, or kept for another state
    /// of the file). Safe from several threads while nothing is added. O(1) expected.
    const hash_cache_entry* find(const hash_cache_key& key) const {
        const auto it = entries_.find({key.device, key.inode});
        return it != entries_.end() && it->second.key == key ? &it->second : nullptr;
    }

    /// Keeps `entry` (which holds at least one hash). What was kept for the same state of
    /// its file is merged into it (a probe hash kept stays when a whole-file hash is added);
    /// what was kept for another state of the file is replaced.
    void add(const hash_cache_entry& entry) {
        if (!entry.has_probe && !entry.has_whole) {
            return;
        }
        hash_cache_entry& kept = entries_[{entry.key.device, entry.key.inode}];
        if (kept.key != entry.key) {
            kept = hash_cache_entry{};
        }
        kept.key = entry.key;
        if (entry.has_probe) {
            kept.has_probe = true;
            kept.probe = entry.probe;
        }
        if (entry.has_whole) {
            kept.has_whole = true;
            kept.whole = entry.whole;
        }
    }

    std::size_t size() const noexcept {
        return entries_.size();
    }

    /// Makes room for `n` files' entries (adding them then allocates their nodes only).
    void reserve(std::size_t n) {
        entries_.reserve(n);
    }

    /// Writes every entry to `path` atomically, creating its directory if needed. Throws
    /// std::system_error naming the path if it cannot.
    void save(const std::filesystem::path& path,
              std::uint32_t hash_version = current_hash_version) const {
        error err;
        save(path, err, hash_version);
        throw_if(err);
    }

    /// save, without throwing: false, the error in `err`, if the file cannot be written.
    bool save(const std::filesystem::path& path, error& err,
              std::uint32_t hash_version = current_hash_version) const {
        std::vector<const hash_cache_entry*> sorted;
        sorted.reserve(entries_.size());
        for (const auto& [id, entry] : entries_) {
            sorted.push_back(&entry);
        }
        std::sort(sorted.begin(), sorted.end(), [](const auto* a, const auto* b) {
            return std::pair{a->key.device, a->key.inode} < std::pair{b->key.device, b->key.inode};
        });
        std::string bytes(header_bytes + sorted.size() * entry_bytes + trailer_bytes, '\0');
        auto* p = reinterpret_cast<unsigned char*>(bytes.data());
        std::memcpy(p, magic, 16);
        put32(p + 16, format_version);
        put32(p + 20, hash_version);
        std::memcpy(p + 24, hash_name, sizeof hash_name);
        put64(p + 40, sorted.size());
        for (std::size_t i = 0; i < sorted.size(); ++i) {
            unsigned char* e = p + header_bytes + i * entry_bytes;
            const hash_cache_entry& entry = *sorted[i];
            put64(e, entry.key.device);
            put64(e + 8, entry.key.inode);
            put64(e + 16, entry.key.size);
            put64(e + 24, static_cast<std::uint64_t>(entry.key.mtime_ns));
            put64(e + 32, static_cast<std::uint64_t>(entry.key.ctime_ns));
            put64(e + 40, (entry.has_probe ? 1u : 0u) | (entry.has_whole ? 2u : 0u));
            if (entry.has_probe) {
                put64(e + 48, entry.probe.first);
                put64(e + 56, entry.probe.second);
            }
            if (entry.has_whole) {
                put64(e + 64, entry.whole.first);
                put64(e + 72, entry.whole.second);
            }
        }
        const std::size_t body = bytes.size() - trailer_bytes;
        const auto sum = checksum(bytes.data(), body);
        put64(p + body, sum.first);
        put64(p + body + 8, sum.second);
        if (const std::filesystem::path dir = path.parent_path(); !dir.empty()) {
            std::error_code ec;
            std::filesystem::create_directories(dir, ec);
            if (ec) {
                err = os_error(ec.value(), "create the directory of", path);
                return false;
            }
        }
        atomic_file out(path, err);
        out.write(bytes.data(), bytes.size(), err);
        return out.commit(err);
    }

  private:
    static constexpr char magic[17] = "FASTREAD-HASHES\n";

    struct id_hash_fn {
        std::size_t operator()(const std::pair<std::uint64_t, std::uint64_t>& k) const noexcept {
            return id_hash()(k);
        }
    };

    static std::pair<std::uint64_t, std::uint64_t> checksum(const char* data, std::size_t n) {
#if FASTREAD_HAVE_XXHASH
        const XXH128_hash_t h = XXH3_128bits(data, n);
        return {h.low64, h.high64};
#else
        (void)data;
        (void)n;
        return {0, 0};
#endif
    }
    static std::uint64_t get64(const unsigned char* p) noexcept {
        std::uint64_t v = 0;
        for (int i = 7; i >= 0; --i) {
            v = (v << 8) | p[i];
        }
        return v;
    }
    static std::uint32_t get32(const unsigned char* p) noexcept {
        return static_cast<std::uint32_t>(p[0]) | static_cast<std::uint32_t>(p[1]) << 8 |
               static_cast<std::uint32_t>(p[2]) << 16 | static_cast<std::uint32_t>(p[3]) << 24;
    }
    static void put64(unsigned char* p, std::uint64_t v) noexcept {
        for (int i = 0; i < 8; ++i) {
            p[i] = static_cast<unsigned char>(v >> (8 * i));
        }
    }
    static void put32(unsigned char* p, std::uint32_t v) noexcept {
        for (int i = 0; i < 4; ++i) {
            p[i] = static_cast<unsigned char>(v >> (8 * i));
        }
    }

    std::unordered_map<std::pair<std::uint64_t, std::uint64_t>, hash_cache_entry, id_hash_fn>
        entries_;
};

} // namespace fastread::detail

#endif // FASTREAD_DUPLICATES_DETAIL_CACHE_HPP
