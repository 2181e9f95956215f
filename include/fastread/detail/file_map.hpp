#ifndef FASTREAD_DETAIL_FILE_MAP_HPP
#define FASTREAD_DETAIL_FILE_MAP_HPP

// The file layer's one memory map type.

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <utility>

#if !defined(_WIN32)
#include <sys/mman.h>
#include <unistd.h>
#endif

#include "bus_guard.hpp"
#include "posix.hpp"

namespace fastread::detail {

/// A map of bytes [0, size) of an open file: read-only or writable, shared (stores reach
/// the file) or private (copy on write). Move-only; unmapped on destruction. A size of 0
/// maps nothing (mmap refuses length 0) and gives an empty map.
///
/// A map can be guarded (guard()): a thread that then touches a page the file no longer
/// has (it shrank after the map was made) reads zeros instead of receiving SIGBUS (and
/// stores into a writable map's such pages go nowhere), and lost() tells where the file's
/// bytes ended. Unguarded maps get the kernel's SIGBUS. Guard a writable shared map only
/// where stores overwrite blocks in place (overwrites_in_place): a store that needs a
/// block on a full disk faults the same way, and the guard would hide the lost store
/// until lost() is asked.
/// How the pages of a map will be used (madvise(2)): advice, which the system may ignore.
enum class map_advice {
    normal,     ///< MADV_NORMAL
    random,     ///< MADV_RANDOM: no read-around of neighbours on each fault
    sequential, ///< MADV_SEQUENTIAL: aggressive read-ahead, pages behind may be dropped
    will_need,  ///< MADV_WILLNEED: start reading these pages in now
    dont_need,  ///< MADV_DONTNEED: drop this map's page-table entries (not the file's pages)
};

/// madvise over the pages holding bytes [at, at + n) of a map (`at` is rounded down to its
/// page); a failure is ignored.
inline void advise_range(const void* at, std::size_t n, map_advice advice) noexcept {
    if (at == nullptr || n == 0) {
        return;
    }
#if defined(_WIN32)
    (void)advice; // no madvise: Windows reads ahead on its own
#else
    const std::uintptr_t first = reinterpret_cast<std::uintptr_t>(at) / page_size() * page_size();
    const int a = advice == map_advice::random       ? MADV_RANDOM
                  : advice == map_advice::sequential ? MADV_SEQUENTIAL
                  : advice == map_advice::will_need  ? MADV_WILLNEED
                  : advice == map_advice::dont_need  ? MADV_DONTNEED
                                                     : MADV_NORMAL;
    (void)::madvise(reinterpret_cast<void*>(first),
                    n + (reinterpret_cast<std::uintptr_t>(at) - first), a);
#endif
}

class file_map {
  public:
    enum class access { read_only, read_write };
    enum class sharing { shared, private_copy };

    file_map() noexcept = default;

    /// Maps the file; throws std::system_error ("mmap", the path) on failure.
    file_map(int fd, std::uint64_t size, access a, sharing s, const std::filesystem::path& path) {
        const int err = map(fd, size, a, s);
        if (err != 0) {
            throw_system_error(err, "mmap", path);
        }
    }

    /// Maps the file without throwing: the errno of a failed mmap, or 0.
    static file_map try_map(int fd, std::uint64_t size, access a, sharing s, int& err) noexcept {
        file_map m;
        err = m.map(fd, size, a, s);
        return m;
    }

    file_map(file_map&& other) noexcept
        : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)),
          writable_(other.writable_), guard_(std::move(other.guard_)) {}
    file_map& operator=(file_map&& other) noexcept {
        if (this != &other) {
            unmap();
            data_ = std::exchange(other.data_, nullptr);
            size_ = std::exchange(other.size_, 0);
            writable_ = other.writable_;
            guard_ = std::move(other.guard_);
        }
        return *this;
    }
    file_map(const file_map&) = delete;
    file_map& operator=(const file_map&) = delete;
    ~file_map() { unmap(); }

    char* data() const noexcept { return data_; }
    std::size_t size() const noexcept { return size_; }
    std::span<const char> bytes() const noexcept { return {data_, size_}; }
    explicit operator bool() const noexcept { return data_ != nullptr; }

    /// madvise over the whole map; advice only, so a failure is ignored.
    void advise(map_advice advice) const noexcept { advise_range(data_, size_, advice); }

    /// Guards the map against SIGBUS (see the class doc). False when no guard
    /// could be set (no free slot, or sigaction failed): the caller should not touch the
    /// map where the file may shrink.
    bool guard() noexcept {
        if (data_ != nullptr && !guard_.active()) {
            guard_ = bus_guard(data_, size_, writable_);
        }
        return guard_.active();
    }
    /// Offset of the first byte of a guarded map that was replaced by zeros because the
    /// file had shrunk when it was touched, or -1.
    std::int64_t lost() const noexcept { return guard_.lost(); }

  private:
    int map(int fd, std::uint64_t size, access a, sharing s) noexcept {
        if (size == 0) {
            return 0;
        }
        if (size > SIZE_MAX) {
            return EFBIG;
        }
        void* p = sys::map_file(fd, static_cast<std::size_t>(size), a == access::read_write,
                                s == sharing::shared);
        if (p == nullptr) {
            return errno;
        }
        data_ = static_cast<char*>(p);
        size_ = static_cast<std::size_t>(size);
        writable_ = a == access::read_write;
        return 0;
    }
    void unmap() noexcept {
        guard_.release(); // before the addresses can be reused
        if (data_ != nullptr) {
            sys::unmap_file(data_, size_);
            data_ = nullptr;
            size_ = 0;
        }
    }

    char* data_ = nullptr;
    std::size_t size_ = 0;
    bool writable_ = false;
    bus_guard guard_;
};

/// A guarded shared map (read-only unless `access` says otherwise) of the first `size`
/// bytes of `fd`, or an empty map when it cannot be made or guarded (the caller then reads
/// or writes with system calls): the fallback every default path takes where mmap fails
/// (ENODEV, ENOMEM under an address-space limit, EACCES...).
inline file_map guarded_map(int fd, std::uint64_t size,
                            file_map::access access = file_map::access::read_only) noexcept {
    int err = 0;
    file_map map = file_map::try_map(fd, size, access, file_map::sharing::shared, err);
    if (err != 0 || !map.guard()) {
        return {};
    }
    return map;
}

} // namespace fastread::detail

#endif // FASTREAD_DETAIL_FILE_MAP_HPP
