// The loops and error paths of detail/ (posix.hpp, atomic_file.hpp, file_map.hpp) and of the
// entry points above them, driven by system calls that fail on purpose: EINTR, short counts,
// a count of 0, ENOSPC, EIO, a map that cannot be made, at a chosen call.

#include <fastread/detail/atomic_file.hpp>
#include <fastread/detail/posix.hpp>
#include <fastread/detail/rw.hpp>
#include <fastread/detail/syscall.hpp>
#include <fastread/files_equal.hpp>
#include <fastread/lines.hpp>
#include <fastread/page_cache.hpp>
#include <fastread/ppm.hpp>
#include <fastread/records.hpp>
#include <fastread/source/mmap_source.hpp>
#include <fastread/string_table.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <functional>
#include <mutex>
#include <span>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

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

// Entry points may call from several threads (read_at splits cached work over the CPUs).
std::mutex plan_mutex;

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
        const std::lock_guard<std::mutex> lock(plan_mutex);
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
int mmap_error = 0; // every mmap of a file fails with this errno (0: none)
int mmap_calls = 0; // mmaps of a file asked for since the fakes went in

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
// A pwrite that starts at this offset fails once with ENOSPC (-1: none; -2: it failed);
// the pwrites made after it are counted.
off_t pwrite_fail_offset = -1;
int pwrites_past_failure = 0;

ssize_t fake_pwrite(int fd, const void* src, std::size_t n, off_t at) {
    if (pwrite_fail_offset != -1) {
        const std::lock_guard<std::mutex> lock(plan_mutex);
        if (at == pwrite_fail_offset) {
            pwrite_fail_offset = -2; // once; offsets past it are still counted
            errno = ENOSPC;
            return -1;
        }
        if (pwrite_fail_offset == -2) {
            ++pwrites_past_failure;
        }
    }
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
void* fake_mmap(void* at, std::size_t n, int prot, int flags, int fd, off_t offset) {
    {
        const std::lock_guard<std::mutex> lock(plan_mutex);
        ++mmap_calls;
        if (mmap_error != 0) {
            errno = mmap_error;
            return MAP_FAILED;
        }
    }
    return ::mmap(at, n, prot, flags, fd, offset);
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
        mmap_error = 0;
        mmap_calls = 0;
        pwrite_fail_offset = -1;
        pwrites_past_failure = 0;
        saved_ = detail::sys::hooks();
        detail::sys::hook_table& h = detail::sys::hooks();
        h.read = fake_read;
        h.pread = fake_pread;
        h.write = fake_write;
        h.pwrite = fake_pwrite;
        h.fsync = fake_fsync;
        h.rename = fake_rename;
        h.mmap = fake_mmap;
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

// A named fault plan and the errno the call under test must throw (0: none, every byte).
struct fault_case {
    const char* name;
    plan p;
    int expected_errno;
};

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
    const fault_case cases[] = {
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
        const fault_case cases[] = {
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
    const fault_case cases[] = {
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

namespace {

using bytes_image = fastread::ppm::image<std::uint8_t>;

// A P6 image whose samples all differ from their neighbours.
bytes_image test_image(std::size_t width, std::size_t height) {
    bytes_image img;
    img.width = width;
    img.height = height;
    img.maxval = 255;
    img.samples.resize(width * height * 3);
    for (std::size_t i = 0; i < img.samples.size(); ++i) {
        img.samples[i] = static_cast<std::uint8_t>(i * 31 % 251);
    }
    return img;
}

// Text of lines from 0 to 199 bytes, some ending in CRLF.
std::string test_text(std::size_t lines) {
    std::string text;
    for (std::size_t i = 0; i < lines; ++i) {
        text += std::string(i * 37 % 200, static_cast<char>('a' + i % 26));
        text += i % 3 == 0 ? "\r\n" : "\n";
    }
    return text;
}

std::vector<std::string> lines_of(const fs::path& path, fastread::io_mode io) {
    fastread::line_options o;
    o.io = io;
    std::vector<std::string> out;
    for (std::string_view line : fastread::lines(path, o)) {
        out.emplace_back(line);
    }
    return out;
}

// Records 0, 7, 14, ... and the last, backwards; each 8-byte record holds its own index.
std::vector<std::uint64_t> records_of(const fs::path& path, std::uint64_t count,
                                      fastread::record_options o) {
    std::vector<std::uint64_t> indices;
    for (std::uint64_t i = count; i-- > 0;) {
        if (i % 7 == 0 || i + 1 == count) {
            indices.push_back(i);
        }
    }
    std::vector<std::uint64_t> out(indices.size());
    fastread::read_at<std::uint64_t>(path, indices, std::span<std::uint64_t>(out), o);
    return out;
}

std::vector<std::uint64_t> expected_records(std::uint64_t count) {
    std::vector<std::uint64_t> out;
    for (std::uint64_t i = count; i-- > 0;) {
        if (i % 7 == 0 || i + 1 == count) {
            out.push_back(i);
        }
    }
    return out;
}

std::vector<std::string> split_lines(const std::string& text) {
    std::vector<std::string> out;
    std::size_t from = 0;
    while (from < text.size()) {
        std::size_t end = text.find('\n', from);
        std::size_t stop = end;
        if (stop > from && text[stop - 1] == '\r') {
            --stop;
        }
        out.push_back(text.substr(from, stop - from));
        from = end + 1;
    }
    return out;
}

// The files the entry-point tests read, written once, and what reading them gives.
struct entry_files {
    temp_dir dir;
    fs::path text = dir / "log.txt";
    fs::path raw = dir / "image.ppm";
    fs::path plain = dir / "plain.ppm";
    fs::path copy = dir / "copy.ppm";
    fs::path other = dir / "other.ppm";
    fs::path records = dir / "records.bin";
    std::string text_bytes = test_text(5000);
    bytes_image image = test_image(211, 97);
    std::uint64_t record_count = 20000;
    std::vector<std::string> want_lines = split_lines(text_bytes);
    std::vector<std::uint64_t> want_records = expected_records(record_count);

    entry_files() {
        write_file(text, text_bytes);
        fastread::ppm::save(raw, image);
        fastread::ppm::save(plain, image, fastread::ppm::format::plain);
        fastread::ppm::save(copy, image);
        std::string differs = read_file(raw);
        differs.back() ^= 1; // the last byte only
        write_file(other, differs);
        std::string r(record_count * 8, '\0');
        for (std::uint64_t i = 0; i < record_count; ++i) {
            std::memcpy(r.data() + i * 8, &i, 8);
        }
        write_file(records, r);
    }
};

} // namespace

TEST_CASE("entry points: interrupted and short reads change nothing, a read error names the file",
          "[syscall]") {
    const entry_files f;
    const std::vector<std::string>& want_lines = f.want_lines;
    const std::vector<std::uint64_t>& want_records = f.want_records;
    using fastread::io_mode;
    const fastread::compare_options by_reading{fastread::compare_method::automatic, 0,
                                               io_mode::read};
    fastread::record_options by_pread;
    by_pread.method = fastread::access_method::pread;
    fastread::record_options automatic_read;
    automatic_read.io = io_mode::read;

    const fault_case harmless[] = {
        // each gives the fault-free result
        {"EINTR three times", fail_at(0, EINTR, 3), 0},
        {"EINTR at the second call", fail_at(1, EINTR, 1), 0},
        {"short reads of 7 bytes", short_at(0, 7, 40), 0},
        {"a short read later", short_at(2, 100, 1), 0},
    };
    for (const auto& c : harmless) {
        CAPTURE(c.name);
        faults on;
        const auto arm = [&] {
            read_plan = c.p;
            pread_plan = c.p;
        };
        arm();
        CHECK(lines_of(f.text, io_mode::read) == want_lines);
        arm();
        CHECK(fastread::ppm::load(f.raw, {.io = io_mode::read}) == f.image);
        arm();
        CHECK(fastread::ppm::load(f.plain, {.io = io_mode::read}) == f.image);
        arm();
        CHECK(fastread::files_equal(f.raw, f.copy, by_reading));
        arm();
        CHECK_FALSE(fastread::files_equal(f.raw, f.other, by_reading));
        arm();
        CHECK(records_of(f.records, f.record_count, by_pread) == want_records);
        arm();
        CHECK(records_of(f.records, f.record_count, automatic_read) == want_records);
        CHECK(read_plan.calls + pread_plan.calls > 0);
    }

    // EIO at the first read: std::system_error (EIO) naming the file, from each entry point.
    struct {
        const char* name;
        fs::path path;
        std::function<void()> call;
    } readers[] = {
        {"lines", f.text, [&] { (void)lines_of(f.text, io_mode::read); }},
        {"ppm::load P6", f.raw, [&] { (void)fastread::ppm::load(f.raw, {.io = io_mode::read}); }},
        {"ppm::load P3", f.plain,
         [&] { (void)fastread::ppm::load(f.plain, {.io = io_mode::read}); }},
        {"files_equal", f.raw, [&] { (void)fastread::files_equal(f.raw, f.copy, by_reading); }},
        {"read_at pread", f.records,
         [&] { (void)records_of(f.records, f.record_count, by_pread); }},
        {"read_at automatic", f.records,
         [&] { (void)records_of(f.records, f.record_count, automatic_read); }},
    };
    for (const auto& r : readers) {
        CAPTURE(r.name);
        std::string what;
        int err = 0;
        {
            faults on;
            read_plan = fail_at(0, EIO, 1 << 20);
            pread_plan = fail_at(0, EIO, 1 << 20);
            err = thrown_errno(r.call, what);
        }
        CHECK(err == EIO);
        CHECK_THAT(what, Catch::Contains(r.path.filename().string()));
    }
}

TEST_CASE("a map that cannot be made: default paths read instead, mapping APIs name the file",
          "[syscall]") {
    const entry_files f;
    const std::vector<std::string>& want_lines = f.want_lines;
    const std::vector<std::uint64_t>& want_records = f.want_records;
    using fastread::io_mode;
    const fastread::compare_options by_map{fastread::compare_method::automatic, 0, io_mode::map};
    fastread::record_options automatic_map;
    automatic_map.io = io_mode::map;
    const fs::path table = f.dir / "strings.tbl";
    fastread::string_table::write(table, std::vector<std::string>{"one", "two", "three"});

    for (int error : {ENOMEM, ENODEV, EACCES}) {
        CAPTURE(error);
        faults on;
        mmap_error = error;
        // Each entry point asked for a map (the test would prove nothing otherwise), got
        // none, and read the same bytes.
        const auto tried = [&](auto&& result) {
            const int calls = mmap_calls;
            mmap_calls = 0;
            CHECK(calls > 0);
            return result;
        };
        CHECK(tried(lines_of(f.text, io_mode::map)) == want_lines);
        CHECK(tried(fastread::ppm::load(f.plain, {.io = io_mode::map})) == f.image);
        CHECK(tried(fastread::files_equal(f.raw, f.copy, by_map)));
        CHECK_FALSE(tried(fastread::files_equal(f.raw, f.other, by_map)));
        CHECK(tried(records_of(f.records, f.record_count, automatic_map)) == want_records);

        for (int api : {0, 1}) {
            CAPTURE(api);
            std::string what;
            const fs::path& path = api == 0 ? f.text : table;
            const int err = thrown_errno(
                [&] {
                    if (api == 0) {
                        fastread::mmap_source m(path);
                    } else {
                        (void)fastread::string_table::view::open(path);
                    }
                },
                what);
            CHECK(err == error);
            CHECK_THAT(what, Catch::Contains("mmap") && Catch::Contains(path.filename().string()));
        }
    }
    // And with maps allowed, the same entry points map (the count above was no accident).
    faults on;
    CHECK(lines_of(f.text, io_mode::map) == want_lines);
    CHECK(mmap_calls > 0);
}

TEST_CASE("update_at automatic, cached: a write that fails while another thread writes leaves "
          "exactly the first applied() updates",
          "[syscall][records]") {
    // Records 8 KiB apart (a run each), enough for a window's writes to run on two threads.
    // The write of visit 1000 (the first half of the first window, however requests are
    // joined) fails with ENOSPC; the other thread may have written later records by then,
    // and those must go back to what they were.
    temp_dir dir;
    const fs::path path = dir / "records.bin";
    const std::uint64_t apart = 2048, visits = 12000, failing = 1000;
    std::vector<std::uint64_t> indices(visits);
    for (std::uint64_t k = 0; k < visits; ++k) {
        indices[k] = k * apart + 5;
    }
    bool later_writes_seen = false;
    for (int round = 0; round < 20 && !later_writes_seen; ++round) {
        CAPTURE(round);
        {
            const int fd = ::open(path.c_str(), O_CREAT | O_TRUNC | O_RDWR | O_CLOEXEC, 0644);
            REQUIRE(fd >= 0);
            REQUIRE(::ftruncate(fd, static_cast<off_t>(visits * apart * 4)) == 0);
            ::close(fd);
        }
        fastread::page_cache::preload(path);
        std::size_t applied = 0;
        int err = 0;
        std::string what;
        {
            faults on;
            pwrite_fail_offset = static_cast<off_t>(indices[failing] * 4);
            try {
                fastread::update_at<std::int32_t>(path, indices,
                                                  [](std::int32_t v) { return v + 1; });
            } catch (const fastread::update_error& e) {
                applied = e.applied();
                err = e.code().value();
                what = e.what();
            }
            later_writes_seen = pwrites_past_failure > 0;
        }
        REQUIRE(err == ENOSPC);
        CHECK(applied == failing);
        CHECK_THAT(what, Catch::Contains("pwrite") && Catch::Contains(path.string()));
        std::vector<std::int32_t> got(visits);
        fastread::read_at<std::int32_t>(path, indices, std::span<std::int32_t>(got));
        std::size_t wrong = 0;
        for (std::uint64_t k = 0; k < visits; ++k) {
            wrong += got[k] != (k < failing ? 1 : 0);
        }
        CHECK(wrong == 0);
    }
    if (std::thread::hardware_concurrency() >= 2) {
        // Some round had records after the failed one to put back (writes after the failure).
        CHECK(later_writes_seen);
    }
}
