#ifndef FASTREAD_DETAIL_ATOMIC_FILE_HPP
#define FASTREAD_DETAIL_ATOMIC_FILE_HPP

// Writes a file so that readers see either the old file or the whole new one, never half of
// it: a temporary file in the target's directory, fsync, rename over the target, fsync of
// the directory. Used by ppm::save and, later, string_table::write.

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>

#include <fcntl.h>
#include <unistd.h>

#include "posix.hpp"

namespace fastread::detail {

class atomic_file {
  public:
    /// Creates the temporary file next to `target` (mode 0666 minus the umask, like any
    /// newly created file). Throws std::system_error naming the target.
    explicit atomic_file(const std::filesystem::path& target) : target_(target) {
        static std::atomic<std::uint64_t> counter{0};
        std::filesystem::path dir = target.parent_path();
        for (int attempt = 0;; ++attempt) {
            std::uint64_t stamp = static_cast<std::uint64_t>(
                std::chrono::steady_clock::now().time_since_epoch().count());
            // Appends, not "." + string: GCC 12 -O2 warns falsely on that (-Wrestrict).
            std::string name(1, '.');
            name += target.filename().string();
            name += ".tmp.";
            name += std::to_string(::getpid());
            name += '.';
            name += std::to_string(counter.fetch_add(1) ^ (stamp & 0xffffff));
            temp_ = dir.empty() ? std::filesystem::path(name) : dir / name;
            int fd = ::open(temp_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
            if (fd >= 0) {
                fd_.reset(fd);
                return;
            }
            if (errno == EINTR || (errno == EEXIST && attempt < 100)) {
                continue;
            }
            throw_system_error(errno, "create a temporary file for", target_);
        }
    }
    atomic_file(const atomic_file&) = delete;
    atomic_file& operator=(const atomic_file&) = delete;

    /// Removes the temporary file unless commit() succeeded.
    ~atomic_file() {
        if (!committed_) {
            fd_.reset();
            ::unlink(temp_.c_str());
        }
    }

    void write(const char* data, std::size_t n) { write_all(fd_.get(), data, n, target_); }

    /// The temporary file's descriptor (open for writing, at its end).
    int fd() const noexcept { return fd_.get(); }

    /// fsync, close, rename over the target, fsync the directory. Throws std::system_error.
    void commit() {
        if (::fsync(fd_.get()) != 0) {
            throw_system_error(errno, "fsync", temp_);
        }
        int fd = fd_.release();
        if (::close(fd) != 0 && errno != EINTR) {
            throw_system_error(errno, "close", temp_);
        }
        if (::rename(temp_.c_str(), target_.c_str()) != 0) {
            throw_system_error(errno, "rename temporary file to", target_);
        }
        committed_ = true;
        // Make the rename itself durable; a failure here leaves a complete file in place.
        std::filesystem::path dir = target_.parent_path();
        int dfd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dfd >= 0) {
            (void)::fsync(dfd);
            ::close(dfd);
        }
    }

  private:
    std::filesystem::path target_;
    std::filesystem::path temp_;
    unique_fd fd_;
    bool committed_ = false;
};

} // namespace fastread::detail

#endif // FASTREAD_DETAIL_ATOMIC_FILE_HPP
