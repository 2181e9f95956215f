#ifndef FASTREAD_TESTS_TEST_UTIL_HPP
#define FASTREAD_TESTS_TEST_UTIL_HPP

// Helpers shared by the tests: the SIMD levels to test, temporary directories, files, pipes fed by
// a thread, a chunking memory source, and an independent (deliberately naive) plain-PPM reference
// reader. They build for Linux and for Windows (the Windows suite under Wine), except
// as_unprivileged and without_threads, which fork (POSIX only).

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <span>
#include <sstream>
#include <stdexcept>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include <fcntl.h>
#include <random>
#if defined(_WIN32)
#include <io.h>
#else
#include <sys/resource.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <unistd.h>
#endif

#include <fastread/scan/simd_level.hpp>

#include "test_bytes.hpp"

namespace fastread_test {

inline std::filesystem::path data_path(const std::string& name) {
    return std::filesystem::path(FASTREAD_TEST_DATA_DIR) / name;
}

/// A fresh directory under the system's temporary directory ($TMPDIR; %TEMP% on
/// Windows), removed with its contents on destruction.
class temp_dir {
  public:
    temp_dir() {
        // A random name, created only if no such directory exists (create_directory is
        // false for one that does): what mkdtemp does, on every system.
        std::random_device seed;
        std::mt19937_64 rng((std::uint64_t{seed()} << 32) ^ seed());
        const std::filesystem::path base = std::filesystem::temp_directory_path();
        for (int attempt = 0; attempt < 100; ++attempt) {
            char name[32];
            std::snprintf(name, sizeof name, "fastread-%012llx",
                          static_cast<unsigned long long>(rng() & 0xffffffffffffULL));
            std::error_code ec;
            if (std::filesystem::create_directory(base / name, ec)) {
                path_ = base / name;
                return;
            }
        }
        throw std::runtime_error("cannot create a directory under " + base.string());
    }
    ~temp_dir() {
        std::error_code ec;
        std::filesystem::remove_all(path_, ec);
    }
    temp_dir(const temp_dir&) = delete;
    temp_dir& operator=(const temp_dir&) = delete;
    const std::filesystem::path& path() const { return path_; }
    std::filesystem::path operator/(const std::filesystem::path& name) const {
        return path_ / name;
    }

  private:
    std::filesystem::path path_;
};

inline void write_file(const std::filesystem::path& path, const std::string& bytes) {
    std::ofstream out(path, std::ios::binary);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!out) {
        throw std::runtime_error("cannot write " + path.string());
    }
}

/// Writes the file's dirty pages to the disk (fdatasync). The race tests call it after
/// writing: ext4 writes a file's dirty data out before it shrinks it, so a truncate right
/// after a write waits for that and lands at a moment no test chooses.
inline void sync_file(const std::filesystem::path& path) {
#if defined(_WIN32)
    const int fd = ::_wopen(path.c_str(), _O_RDWR | _O_BINARY); // _commit needs write access
    if (fd < 0 || ::_commit(fd) != 0) {
        if (fd >= 0) {
            ::_close(fd);
        }
        throw std::runtime_error("cannot sync " + path.string());
    }
    ::_close(fd);
#else
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0 || ::fdatasync(fd) != 0) {
        if (fd >= 0) {
            ::close(fd);
        }
        throw std::runtime_error("cannot sync " + path.string());
    }
    ::close(fd);
#endif
}

/// True if `p` is on tmpfs or ramfs, which keep files only in the page cache: eviction
/// cannot drop them. (Always false on Windows.)
inline bool on_memory_file_system(const std::filesystem::path& p) {
#if defined(_WIN32)
    (void)p;
    return false;
#else
    struct statfs fs {};
    if (::statfs(p.c_str(), &fs) != 0) {
        return false;
    }
    constexpr long tmpfs_magic = 0x01021994, ramfs_magic = static_cast<long>(0x858458f6);
    return fs.f_type == tmpfs_magic || fs.f_type == ramfs_magic;
#endif
}

/// Whether this system can be asked which pages of a file the page cache holds (mincore,
/// cachestat) and told to drop them: not Windows, where page_cache::resident_fraction and
/// evict throw and the default paths count every file as not cached (they read it).
inline constexpr bool residency_known =
#if defined(_WIN32)
    false;
#else
    true;
#endif

/// fopen of a path on every system (_wfopen on Windows, for names outside the ANSI code
/// page); the caller fcloses it. Null if it cannot be opened.
inline std::FILE* open_file(const std::filesystem::path& path, const char* mode) {
#if defined(_WIN32)
    const std::wstring wide_mode(mode, mode + std::char_traits<char>::length(mode));
    return ::_wfopen(path.c_str(), wide_mode.c_str());
#else
    return std::fopen(path.c_str(), mode);
#endif
}

/// A read-only descriptor of `path` that the caller closes (close_descriptor), or -1.
inline int open_descriptor(const std::filesystem::path& path) {
#if defined(_WIN32)
    return ::_wopen(path.c_str(), _O_RDONLY | _O_BINARY);
#else
    return ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
#endif
}

/// Whether `fd` is an open descriptor of this process.
inline bool descriptor_open(int fd) {
#if defined(_WIN32)
    return ::_get_osfhandle(fd) != -1;
#else
    return ::fcntl(fd, F_GETFD) != -1;
#endif
}

inline void close_descriptor(int fd) {
#if defined(_WIN32)
    ::_close(fd);
#else
    ::close(fd);
#endif
}

/// Shrinks or extends the file to `size` bytes; false if the system refused (on Windows,
/// while the file is mapped). noexcept: for threads that must not fail a Catch2 assertion.
inline bool resize_file(const std::filesystem::path& path, std::uint64_t size) noexcept {
    std::error_code ec;
    std::filesystem::resize_file(path, size, ec);
    return !ec;
}

/// Sets (or, with null, removes) an environment variable of this process.
inline void set_environment(const char* name, const char* value) {
#if defined(_WIN32)
    ::_putenv_s(name, value != nullptr ? value : ""); // an empty value removes it
#else
    if (value != nullptr) {
        ::setenv(name, value, 1);
    } else {
        ::unsetenv(name);
    }
#endif
}

inline std::string read_file(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        throw std::runtime_error("cannot read " + path.string());
    }
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

/// Concatenates every chunk a source hands out.
template <class Source>
std::string drain(Source& source) {
    std::string all;
    for (auto chunk = source.next(); !chunk.empty(); chunk = source.next()) {
        all.append(chunk.data(), chunk.size());
    }
    return all;
}

/// Bytes in memory handed out `chunk_size` bytes at a time (not contiguous, no size known):
/// stands for a stream whose chunks split every token somewhere.
class chunked_source {
  public:
    chunked_source(const std::string& bytes, std::size_t chunk_size)
        : bytes_(bytes), chunk_size_(chunk_size) {}
    std::span<const char> next() {
        std::size_t n = std::min(chunk_size_, bytes_.size() - at_);
        std::span<const char> chunk(bytes_.data() + at_, n);
        at_ += n;
        return chunk;
    }

  private:
    std::string bytes_;
    std::size_t chunk_size_ = 1;
    std::size_t at_ = 0;
};

/// A pipe whose write end a thread fills with `bytes` and then closes. The read end
/// belongs to the caller (`read_fd()`, or `take_file()` as a FILE*).
class pipe_feeder {
  public:
    explicit pipe_feeder(std::string bytes) : bytes_(std::move(bytes)) {
        int fds[2];
#if defined(_WIN32)
        if (::_pipe(fds, 1 << 16, _O_BINARY | _O_NOINHERIT) != 0) {
#else
        if (::pipe(fds) != 0) {
#endif
            throw std::runtime_error("pipe failed");
        }
        read_fd_ = fds[0];
        int write_fd = fds[1];
        writer_ = std::thread([this, write_fd] {
            std::size_t at = 0;
            while (at < bytes_.size()) {
#if defined(_WIN32)
                const auto n = ::_write(write_fd, bytes_.data() + at,
                                        static_cast<unsigned>(std::min<std::size_t>(
                                            bytes_.size() - at, std::size_t{1} << 20)));
#else
                const ssize_t n = ::write(write_fd, bytes_.data() + at, bytes_.size() - at);
#endif
                if (n < 0 && errno == EINTR) {
                    continue;
                }
                if (n <= 0) {
                    break; // EPIPE: the reader stopped early, which is allowed
                }
                at += static_cast<std::size_t>(n);
            }
            close_fd(write_fd);
        });
    }
    ~pipe_feeder() {
        close_read_end();
        writer_.join();
    }
    pipe_feeder(const pipe_feeder&) = delete;
    pipe_feeder& operator=(const pipe_feeder&) = delete;

    int read_fd() const {
        return read_fd_;
    }
    /// Wraps the read end in a FILE* that the caller must fclose.
    std::FILE* take_file() {
#if defined(_WIN32)
        std::FILE* f = ::_fdopen(read_fd_, "rb");
#else
        std::FILE* f = ::fdopen(read_fd_, "rb");
#endif
        read_fd_ = -1;
        return f;
    }
    void close_read_end() {
        if (read_fd_ >= 0) {
            close_fd(read_fd_);
            read_fd_ = -1;
        }
    }

  private:
    static void close_fd(int fd) {
#if defined(_WIN32)
        ::_close(fd);
#else
        ::close(fd);
#endif
    }
    std::string bytes_;
    int read_fd_ = -1;
    std::thread writer_;
};

/// Runs a shell command and returns what it printed on stdout.
inline std::string run_command(const std::string& command) {
#if defined(_WIN32)
    std::unique_ptr<std::FILE, int (*)(std::FILE*)> p(::_popen(command.c_str(), "rb"), &::_pclose);
#else
    std::unique_ptr<std::FILE, int (*)(std::FILE*)> p(::popen(command.c_str(), "r"), &::pclose);
#endif
    if (!p) {
        throw std::runtime_error("popen failed: " + command);
    }
    std::string out;
    char buf[65536];
    for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, p.get())) > 0;) {
        out.append(buf, n);
    }
    return out;
}

/// An independent reference for plain PPM as Netpbm writes it (no comments): whitespace-
/// separated tokens read with iostream `>>`.
struct reference_image {
    unsigned width = 0, height = 0, maxval = 0;
    std::vector<unsigned> samples;
};
inline reference_image reference_decode_plain(const std::string& text) {
    std::istringstream in(text);
    std::string magic;
    reference_image r;
    in >> magic >> r.width >> r.height >> r.maxval;
    if (magic != "P3" || !in) {
        throw std::runtime_error("reference: not a plain PPM");
    }
    r.samples.resize(std::size_t{r.width} * r.height * 3);
    for (unsigned& s : r.samples) {
        if (!(in >> s)) {
            throw std::runtime_error("reference: short raster");
        }
    }
    return r;
}

#if !defined(_WIN32)
// Runs `body` as an unprivileged user (nobody) in a child process when the tests run as
// root, who can read mode-000 files; returns its exit status.
template <class Body>
int as_unprivileged(Body body) {
    if (::geteuid() != 0) {
        return body();
    }
    const pid_t pid = ::fork();
    if (pid == 0) {
        if (::setgid(65534) != 0 || ::setuid(65534) != 0) {
            ::_exit(99);
        }
        ::_exit(body());
    }
    int status = 0;
    ::waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 98;
}

// Runs `body` in a child process that cannot create threads (RLIMIT_NPROC 0, as an
// unprivileged user when the tests run as root, whom the limit does not bind); returns its
// exit status: body's result, 96 if a thread could still be created, 95 if body threw,
// 98 if it died. Open what body needs before (descriptors and maps are inherited): the
// child may not be allowed to open the test's files.
template <class Body>
int without_threads(Body body) {
    const pid_t pid = ::fork();
    if (pid == 0) {
        if (::geteuid() == 0 && (::setgid(65534) != 0 || ::setuid(65534) != 0)) {
            ::_exit(99);
        }
        const rlimit none{0, 0};
        if (::setrlimit(RLIMIT_NPROC, &none) != 0) {
            ::_exit(97);
        }
        try {
            std::thread probe([] {});
            probe.join();
            ::_exit(96);
        } catch (const std::system_error&) {
        }
        try {
            ::_exit(body());
        } catch (...) {
            ::_exit(95);
        }
    }
    int status = 0;
    ::waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 98;
}
#endif

} // namespace fastread_test

#endif
