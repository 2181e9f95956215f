#include "../detail/cxx20.hpp"
#if FASTREAD_CXX20 && !defined(FASTREAD_RECORDS_OPTIONS_HPP)
#define FASTREAD_RECORDS_OPTIONS_HPP

/// @file
/// The options of read_at and update_at (fastread/records.hpp): the access method and its
/// dials.

#include <string_view>

#include "../io.hpp"

namespace fastread {

/// How read_at and update_at reach the records.
enum class access_method {
    automatic, ///< cached: pread with joined requests (reads from a guarded map when `io` is
               ///< io_mode::map); cold: io_uring (or pread) — see the file doc
    pread,     ///< one pread (and for updates one pwrite of the changed bytes) per request
    mmap,      ///< copy from (update in) a shared map of the file, not guarded: a file that
               ///< shrinks meanwhile, or a store into a hole on a full disk, raises SIGBUS
    io_uring,  ///< requests kept in flight on an io_uring (throws std::system_error with
               ///< ENOSYS when not built with liburing or the kernel refuses a ring)
};

/// The method's name, as the bench rows print it.
constexpr std::string_view to_string(access_method m) noexcept {
    switch (m) {
    case access_method::automatic:
        return "automatic";
    case access_method::pread:
        return "pread";
    case access_method::mmap:
        return "mmap";
    case access_method::io_uring:
        return "io_uring";
    }
    return "?";
}

/// Options of read_at and update_at.
struct record_options {
    /// How the records are read or written (access_method); `automatic` chooses per batch.
    access_method method = access_method::automatic;
    /// Visit the records in file order (a stable sort of the indices; results still come
    /// back in the caller's order, and a repeated index is updated in the caller's order).
    /// Off: visited in the caller's order.
    bool sort = true;
    /// update_at: the changed records are on the device before it returns (`fdatasync`,
    /// or `msync(MS_SYNC)` for `mmap`). Updates are made in place, record by record: a
    /// crash during the call can leave some of the batch applied.
    bool durable = false;
    /// `automatic` only: whether reads come from a guarded map (fastread/io.hpp): read or
    /// map; the default, `process_setting`, reads unless `FASTREAD_IO=map`. Updates write
    /// through a map only with `mmap`.
    io_mode io = io_mode::process_setting;
    /// The most threads a batch uses, the calling thread included (1: none started);
    /// 0: the process setting (fastread/threads.hpp).
    unsigned threads = 0;
};

} // namespace fastread

#endif // FASTREAD_RECORDS_OPTIONS_HPP
