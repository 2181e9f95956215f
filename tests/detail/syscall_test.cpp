// The loops and error paths of detail/ (posix.hpp, atomic_file.hpp) driven by system calls
// that fail on purpose: EINTR, short counts, a count of 0, ENOSPC, EIO, at a chosen call.

#include <fastread/detail/atomic_file.hpp>
#include <fastread/detail/posix.hpp>
#include <fastread/detail/syscall.hpp>
#include <fastread/ppm.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <string>
#include <system_error>

#include <fcntl.h>
#include <unistd.h>

#include "../test_util.hpp"

#ifndef FASTREAD_SYSCALL_HOOKS
#error "the test suite is built with FASTREAD_SYSCALL_HOOKS"
#endif

using fastread_test::read_file;
using fastread_test::temp_dir;
using fastread_test::write_file;
namespace detail = fastread::detail;
namespace fs = std::filesystem;

namespace {

// What one kind of call does from the `at`-th call (0-based) after the fault is installed,
// for `times` calls: fail with `error`, or (error 0) transfer at most `count` bytes.
struct plan {
    int at = 0;
    int times = 1;
    int error = 0;
    long count = 0;
    int calls = 0;

    // Whether this call is faulted; then `result` is what it returns.
    bool fault(std::size_t n, long& result) {
        const int k = calls++;
        if (k < at || k >= at + times) {
            return false;
        }
        if (error != 0) {
            errno = error;
            result = -1;
        } else {
            result = std::min(count, static_cast<long>(n));
        }
        return true;
    }
};

plan read_plan, pread_plan, write_plan, pwrite_plan, fsync_plan, rename_plan;

// Faulted calls that transfer bytes do so for real (a short count reads or writes that many).
ssize_t fake_read(int fd, void* dst, std::size_t n) {
    long r = 0;
    if (read_plan.fault(n, r)) {
        return r <= 0 ? r : ::read(fd, dst, static_cast<std::size_t>(r));
    }
    return ::read(fd, dst, n);
}
ssize_t fake_pread(int fd, void* dst, std::size_t n, off_t at) {
    long r = 0;
    if (pread_plan.fault(n, r)) {
        return r <= 0 ? r : ::pread(fd, dst, static_cast<std::size_t>(r), at);
    }
    return ::pread(fd, dst, n, at);
}
ssize_t fake_write(int fd, const void* src, std::size_t n) {
    long r = 0;
    if (write_plan.fault(n, r)) {
        return r <= 0 ? r : ::write(fd, src, static_cast<std::size_t>(r));
    }
    return ::write(fd, src, n);
}
ssize_t fake_pwrite(int fd, const void* src, std::size_t n, off_t at) {
    long r = 0;
    if (pwrite_plan.fault(n, r)) {
        return r <= 0 ? r : ::pwrite(fd, src, static_cast<std::size_t>(r), at);
    }
    return ::pwrite(fd, src, n, at);
}
int fake_fsync(int fd) {
    long r = 0;
    return fsync_plan.fault(0, r) ? -1 : ::fsync(fd);
}
int fake_rename(const char* from, const char* to) {
    long r = 0;
    return rename_plan.fault(0, r) ? -1 : std::rename(from, to);
}

// Installs the fakes with the plans given, and puts the real calls back when it goes.
class faults {
  public:
    faults() {
        read_plan = pread_plan = write_plan = pwrite_plan = fsync_plan = rename_plan = plan{};
        for (plan* p :
             {&read_plan, &pread_plan, &write_plan, &pwrite_plan, &fsync_plan, &rename_plan}) {
            p->at = 1 << 30; // none, unless the test says
        }
        saved_ = detail::sys::hooks();
        detail::sys::hook_table& h = detail::sys::hooks();
        h.read = fake_read;
        h.pread = fake_pread;
        h.write = fake_write;
        h.pwrite = fake_pwrite;
        h.fsync = fake_fsync;
        h.rename = fake_rename;
    }
    ~faults() { detail::sys::hooks() = saved_; }
    faults(const faults&) = delete;
    faults& operator=(const faults&) = delete;

  private:
    detail::sys::hook_table saved_;
};

plan fail_at(int at, int error, int times = 1) {
    return plan{at, times, error, 0, 0};
}
plan short_at(int at, long count, int times = 1) {
    return plan{at, times, 0, count, 0};
}

std::string content_of(std::size_t n) {
    std::string s(n, '\0');
    for (std::size_t i = 0; i < n; ++i) {
        s[i] = static_cast<char>('a' + i * 7 % 26);
    }
    return s;
}

// The errno a call throws as std::system_error, or 0; `what` gets its message.
template <class F>
int thrown_errno(F f, std::string& what) {
    try {
        f();
    } catch (const std::system_error& e) {
        what = e.what();
        return e.code().value();
    }
    return 0;
}

} // namespace

TEST_CASE("write_all: EINTR and short writes are retried, a write of 0 or an error throws",
          "[detail][syscall]") {
    temp_dir dir;
    const fs::path path = dir / "out";
    const std::string data = content_of(100000);
    struct {
        const char* name;
        plan p;
        int expected_errno; // 0: every byte written
    } cases[] = {
        {"EINTR first", fail_at(0, EINTR), 0},   {"EINTR three times", fail_at(1, EINTR, 3), 0},
        {"short writes", short_at(0, 7, 5), 0},  {"a write of 0", short_at(0, 0), EIO},
        {"one short write", short_at(0, 10), 0}, {"ENOSPC", fail_at(0, ENOSPC), ENOSPC},
        {"EIO", fail_at(0, EIO), EIO},
    };
    for (const auto& c : cases) {
        CAPTURE(c.name);
        const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        REQUIRE(fd >= 0);
        const detail::unique_fd guard(fd);
        std::string what;
        int got = 0;
        {
            faults f;
            write_plan = c.p;
            got =
                thrown_errno([&] { detail::write_all(fd, data.data(), data.size(), path); }, what);
        }
        CHECK(got == c.expected_errno);
        if (c.expected_errno == 0) {
            CHECK(read_file(path) == data);
        } else {
            CHECK_THAT(what, Catch::Contains(path.string()) && Catch::Contains("write"));
        }
    }
}

TEST_CASE("pwrite_all and pwrite_counted: retries, a write of 0 and errors", "[detail][syscall]") {
    temp_dir dir;
    const fs::path path = dir / "out";
    const std::string data = content_of(50000);
    for (int way : {0, 1}) { // pwrite_all (throws), pwrite_counted (returns the errno)
        CAPTURE(way);
        struct {
            const char* name;
            plan p;
            int expected_errno;
        } cases[] = {
            {"EINTR", fail_at(0, EINTR, 2), 0},
            {"short writes", short_at(0, 1000, 3), 0},
            {"a write of 0", short_at(0, 0), EIO},
            {"ENOSPC", fail_at(0, ENOSPC), ENOSPC},
        };
        for (const auto& c : cases) {
            CAPTURE(c.name);
            write_file(path, std::string(60000, '.'));
            const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
            REQUIRE(fd >= 0);
            const detail::unique_fd guard(fd);
            std::string what;
            int got = 0;
            std::size_t done = 1;
            {
                faults f;
                pwrite_plan = c.p;
                if (way == 0) {
                    got = thrown_errno(
                        [&] { detail::pwrite_all(fd, data.data(), data.size(), 100, path); }, what);
                } else {
                    got = detail::pwrite_counted(fd, data.data(), data.size(), 100, done);
                }
            }
            CHECK(got == c.expected_errno);
            const std::string now = read_file(path);
            REQUIRE(now.size() == 60000);
            if (c.expected_errno == 0) {
                CHECK(now.substr(100, data.size()) == data);
                if (way == 1) {
                    CHECK(done == data.size());
                }
            } else if (way == 0) {
                CHECK_THAT(what, Catch::Contains(path.string()) && Catch::Contains("pwrite"));
            } else {
                CHECK(done == 0);
            }
        }
    }
}

TEST_CASE("read_full and pread_full: retries and short reads give every byte, errors throw",
          "[detail][syscall]") {
    temp_dir dir;
    const fs::path path = dir / "in";
    const std::string data = content_of(200000);
    write_file(path, data);
    struct {
        const char* name;
        plan p;
        int expected_errno;
    } cases[] = {
        {"EINTR", fail_at(0, EINTR, 3), 0},
        {"short reads", short_at(0, 5, 10), 0},
        {"EIO", fail_at(0, EIO), EIO},
    };
    for (int way : {0, 1}) { // read_full, pread_full from offset 10
        for (const auto& c : cases) {
            CAPTURE(way, c.name);
            const detail::unique_fd fd = detail::open_read_only(path);
            std::string got(data.size() + 10, '\0');
            std::string what;
            std::size_t n = 0;
            int err = 0;
            {
                faults f;
                (way == 0 ? read_plan : pread_plan) = c.p;
                err = thrown_errno(
                    [&] {
                        n = way == 0
                                ? detail::read_full(fd.get(), got.data(), got.size(), path)
                                : detail::pread_full(fd.get(), got.data(), got.size(), 10, path);
                    },
                    what);
            }
            CHECK(err == c.expected_errno);
            if (err == 0) {
                const std::string want = way == 0 ? data : data.substr(10);
                CHECK(n == want.size());
                CHECK(got.substr(0, n) == want);
            } else {
                CHECK_THAT(what, Catch::Contains(path.string()));
            }
        }
    }
}

TEST_CASE("writers: a failed write, fsync or rename keeps the old file and leaves no temporary",
          "[detail][syscall]") {
    temp_dir dir;
    const fs::path path = dir / "image.ppm";
    fastread::ppm::image<std::uint8_t> img;
    img.width = 300;
    img.height = 200;
    img.maxval = 255;
    img.samples.resize(std::size_t{300} * 200 * 3, 7);
    for (const char* what : {"write ENOSPC", "write of 0", "fsync EIO", "rename EIO"}) {
        CAPTURE(what);
        write_file(path, "the old file");
        int err = 0;
        std::string message;
        {
            faults f;
            const std::string w = what;
            if (w == "write ENOSPC") {
                write_plan = fail_at(1, ENOSPC);
            } else if (w == "write of 0") {
                write_plan = short_at(0, 0);
            } else if (w == "fsync EIO") {
                fsync_plan = fail_at(0, EIO);
            } else {
                rename_plan = fail_at(0, EIO);
            }
            err = thrown_errno([&] { fastread::ppm::save(path, img); }, message);
        }
        CHECK(err == (std::string(what) == "write ENOSPC" ? ENOSPC : EIO));
        CHECK_THAT(message, Catch::Contains(path.filename().string()));
        CHECK(read_file(path) == "the old file");
        std::size_t entries = 0;
        for (const auto& e : fs::directory_iterator(dir.path())) {
            (void)e;
            ++entries;
        }
        CHECK(entries == 1); // no temporary file left
    }
    // And with no fault, it is written.
    fastread::ppm::save(path, img);
    CHECK(fastread::ppm::load(path) == img);
}
