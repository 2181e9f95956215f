#ifndef FASTREAD_PNM_DETAIL_FILE_BATCH_HPP
#define FASTREAD_PNM_DETAIL_FILE_BATCH_HPP

// Many small files opened, read and closed with a few system calls: a group of files goes
// to an io_uring as linked open, read and close requests (the files opened into the ring's
// own table, so the process's descriptors are not used), submitted and waited for with one
// call. For files of a few KiB those three calls a file are most of a load's time; the ring
// makes them one call a group. Where the build has no liburing or the kernel gives no ring
// (io_uring disabled, filtered by seccomp, before Linux 5.15), usable() is false and callers
// read the files themselves.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include "../../detail/platform.hpp" // FASTREAD_HAVE_LIBURING is 0 without Linux's calls

#ifndef FASTREAD_HAVE_LIBURING
#define FASTREAD_HAVE_LIBURING 0
#endif
#if FASTREAD_HAVE_LIBURING
#include <fcntl.h>
#include <liburing.h>
#include <unistd.h>
#endif

namespace fastread::detail {

/// What reading one file of a group gave: the bytes read, or the errno of the open or of
/// the read that failed.
struct batch_read {
    std::size_t got = 0;
    int open_errno = 0;
    int read_errno = 0;
};

/// An io_uring that reads groups of up to `group` files, each from its start into its own
/// buffer. Not copyable; one per thread.
class file_batch_reader {
  public:
    explicit file_batch_reader(unsigned group) noexcept : group_(group) {
#if FASTREAD_HAVE_LIBURING
        if (io_uring_queue_init(group * 3, &ring_, 0) != 0) {
            return;
        }
        if (io_uring_register_files_sparse(&ring_, group) != 0) {
            io_uring_queue_exit(&ring_);
            return;
        }
        usable_ = true;
#endif
    }
    ~file_batch_reader() {
#if FASTREAD_HAVE_LIBURING
        if (usable_) {
            io_uring_queue_exit(&ring_);
        }
        if (dir_fd_ >= 0) {
            ::close(dir_fd_);
        }
#endif
    }
    file_batch_reader(const file_batch_reader&) = delete;
    file_batch_reader& operator=(const file_batch_reader&) = delete;

    /// Whether the ring works (else read() must not be called).
    bool usable() const noexcept {
        return usable_;
    }

    /// Stops using the ring (its caller found the kernel refuses part of the work).
    void disable() noexcept {
        usable_ = false;
    }

    /// Opens `paths[k]` (read only), reads up to `room` bytes of it into `buffers[k]` and
    /// closes it, for k < count <= group, all in one submission; `out[k]` says what came of
    /// each. False, with `out` undefined, if the ring refused the work (the caller then reads
    /// the files itself; usable() is false from then on).
    bool read(const std::filesystem::path* paths, char* const* buffers, std::size_t room,
              std::size_t count, batch_read* out) noexcept {
#if FASTREAD_HAVE_LIBURING
        for (std::size_t k = 0; k < count; ++k) {
            const auto slot = static_cast<unsigned>(k);
            io_uring_sqe* open = io_uring_get_sqe(&ring_);
            io_uring_sqe* read = io_uring_get_sqe(&ring_);
            io_uring_sqe* close = io_uring_get_sqe(&ring_);
            if (open == nullptr || read == nullptr || close == nullptr) {
                usable_ = false;
                return false;
            }
            // Relative to the file's directory, opened once for the files that share it (a
            // data set's files do): the kernel then walks one name, not the whole path.
            const std::string& native = paths[k].native();
            const std::size_t slash = native.rfind('/');
            int at = AT_FDCWD;
            const char* name = native.c_str();
            if (slash != std::string::npos && slash > 0 && slash + 1 < native.size()) {
                const std::string_view dir(native.data(), slash);
                if (dir != dir_) {
                    if (dir_fd_ >= 0) {
                        ::close(dir_fd_);
                    }
                    dir_.assign(dir);
                    // O_PATH: a directory that may be searched but not listed works too.
                    dir_fd_ = ::open(dir_.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
                }
                if (dir_fd_ >= 0) {
                    at = dir_fd_;
                    name = native.c_str() + slash + 1;
                }
            }
            io_uring_prep_openat_direct(open, at, name, O_RDONLY, 0, slot);
            open->flags |= IOSQE_IO_LINK;
            open->user_data = k * 3;
            io_uring_prep_read(read, static_cast<int>(slot), buffers[k],
                               static_cast<unsigned>(room), 0);
            read->flags |= IOSQE_FIXED_FILE | IOSQE_IO_LINK;
            read->user_data = k * 3 + 1;
            io_uring_prep_close_direct(close, slot);
            close->user_data = k * 3 + 2;
            out[k] = batch_read{};
        }
        const auto requests = static_cast<unsigned>(count * 3);
        int submitted = 0;
        do {
            submitted = io_uring_submit_and_wait(&ring_, requests);
        } while (submitted == -EINTR);
        if (submitted != static_cast<int>(requests)) {
            usable_ = false;
            return false;
        }
        for (unsigned seen = 0; seen < requests; ++seen) {
            io_uring_cqe* cqe = nullptr;
            int err = 0;
            do {
                err = io_uring_wait_cqe(&ring_, &cqe);
            } while (err == -EINTR);
            if (err != 0) {
                usable_ = false;
                return false;
            }
            const std::uint64_t k = cqe->user_data / 3;
            const int res = cqe->res;
            switch (cqe->user_data % 3) {
            case 0:
                if (res < 0) {
                    out[k].open_errno = -res;
                }
                break;
            case 1:
                if (res >= 0) {
                    out[k].got = static_cast<std::size_t>(res);
                } else if (out[k].open_errno == 0 && res != -ECANCELED) {
                    out[k].read_errno = -res;
                }
                break;
            default:
                break; // a close's result: the file was read, or never opened
            }
            io_uring_cqe_seen(&ring_, cqe);
        }
        return true;
#else
        (void)paths;
        (void)buffers;
        (void)room;
        (void)count;
        (void)out;
        return false;
#endif
    }

    /// The most files one read() takes.
    unsigned group() const noexcept {
        return group_;
    }

  private:
    unsigned group_;
    bool usable_ = false;
#if FASTREAD_HAVE_LIBURING
    io_uring ring_{};
    std::string dir_; // the directory dir_fd_ is open on
    int dir_fd_ = -1;
#endif
};

} // namespace fastread::detail

#endif // FASTREAD_PNM_DETAIL_FILE_BATCH_HPP
