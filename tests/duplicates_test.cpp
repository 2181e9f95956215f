#include <fastread/duplicates.hpp>
#include <fastread/duplicates/detail/dir.hpp>
#include <fastread/page_cache.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <fcntl.h>
#if !defined(_WIN32)
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#endif

#include "test_util.hpp"

using fastread::duplicate_options;
#if !defined(_WIN32)
using fastread_test::as_unprivileged;
#endif
using fastread_test::bytes_of;
using fastread_test::on_memory_file_system;
using fastread_test::temp_dir;
using fastread_test::write_file;
namespace fs = std::filesystem;

namespace {

using groups = std::vector<std::vector<fs::path>>;

groups scan(const std::vector<fs::path>& roots, duplicate_options options = {}) {
    return fastread::find_duplicates(roots, options);
}

groups scan(const fs::path& root, duplicate_options options = {}) {
    return scan(std::vector<fs::path>{root}, options);
}

} // namespace

TEST_CASE("find_duplicates: groups of copies, and near-duplicates are not duplicates",
          "[compare][duplicates]") {
    temp_dir dir;
    const std::string big = bytes_of(100000); // > 8 KiB: the middle is not in the probe
    fs::create_directories(dir / "x" / "y");
    write_file(dir / "a", big);
    write_file(dir / "x" / "b", big);
    write_file(dir / "x" / "y" / "c", big);
    for (std::size_t at : {std::size_t{0}, big.size() / 2, big.size() - 1}) {
        std::string close_copy = big;
        close_copy[at] = static_cast<char>(close_copy[at] ^ 0x20);
        write_file(dir / ("near-" + std::to_string(at)), close_copy);
    }
    // Two pairs of one size that share the probe but differ in the middle.
    std::string p = big, q = big;
    q[50000] = 'q';
    write_file(dir / "x" / "p1", p + "tail");
    write_file(dir / "x" / "p2", p + "tail");
    write_file(dir / "x" / "q1", q + "tail");
    write_file(dir / "x" / "q2", q + "tail");
    write_file(dir / "small1", "hello\n");
    write_file(dir / "small2", "hello\n");
    write_file(dir / "small3", "hellO\n");
    write_file(dir / "unique", "only one of this size");

    // By default the whole tree under the root; the one-root form says the same.
    const groups whole{{dir / "a", dir / "x" / "b", dir / "x" / "y" / "c"},
                       {dir / "small1", dir / "small2"},
                       {dir / "x" / "p1", dir / "x" / "p2"},
                       {dir / "x" / "q1", dir / "x" / "q2"}};
    CHECK(scan(dir.path()) == whole);
    CHECK(fastread::find_duplicates(dir.path()) == whole);
    const fastread::result<groups> tried = fastread::try_find_duplicates(dir.path());
    REQUIRE(tried);
    CHECK(*tried == whole);
    CHECK(fastread::find_duplicates((dir / "x").string().c_str()) ==
          groups{{dir / "x" / "b", dir / "x" / "y" / "c"},
                 {dir / "x" / "p1", dir / "x" / "p2"},
                 {dir / "x" / "q1", dir / "x" / "q2"}});
    // Without recursion only the files directly in the root.
    duplicate_options flat;
    flat.recursive = false;
    CHECK(scan(dir.path(), flat) == groups{{dir / "small1", dir / "small2"}});
    CHECK(fastread::find_duplicates(dir.path(), flat) == groups{{dir / "small1", dir / "small2"}});
    // Several roots, one of them given twice and one inside another: each file once.
    CHECK(scan({dir / "x", dir.path(), dir / "x"}, flat) ==
          groups{{dir / "a", dir / "x" / "b"},
                 {dir / "small1", dir / "small2"},
                 {dir / "x" / "p1", dir / "x" / "p2"},
                 {dir / "x" / "q1", dir / "x" / "q2"}});
    CHECK(scan({dir / "small1", dir / "small1", dir / "x" / ".." / "small1"}) == groups{});
    CHECK(scan(std::vector<fs::path>{dir / "small1", dir / "small2"}) ==
          groups{{dir / "small1", dir / "small2"}});
    // Roots as a braced list: the list of roots, not path's (first, last) constructor.
    const std::string small1 = (dir / "small1").string(), small2 = (dir / "small2").string();
    CHECK(fastread::find_duplicates({small1.c_str(), small2.c_str()}) ==
          groups{{dir / "small1", dir / "small2"}});
    CHECK(fastread::find_duplicates({dir / "x", dir / "small1"}, flat) ==
          groups{{dir / "x" / "p1", dir / "x" / "p2"}, {dir / "x" / "q1", dir / "x" / "q2"}});
}

TEST_CASE("find_duplicates: sizes around the probe and block lengths", "[compare][duplicates]") {
    temp_dir dir;
    for (std::size_t size :
         {std::size_t{1}, std::size_t{4095}, std::size_t{4096}, std::size_t{4097},
          std::size_t{8191}, std::size_t{8192}, std::size_t{8193}, std::size_t{1} << 20,
          (std::size_t{1} << 20) + 1, (std::size_t{2} << 20) + 7}) {
        CAPTURE(size);
        temp_dir sub;
        const std::string s = bytes_of(size, static_cast<unsigned>(size));
        write_file(sub / "one", s);
        write_file(sub / "two", s);
        write_file(sub / "three", s);
        std::string last = s;
        last.back() = static_cast<char>(last.back() ^ 1);
        write_file(sub / "last-differs", last);
        CHECK(scan(sub.path()) == groups{{sub / "one", sub / "three", sub / "two"}});
    }
}

TEST_CASE("find_duplicates: empty and hidden files, size limits", "[compare][duplicates]") {
    temp_dir dir;
    write_file(dir / "e1", "");
    write_file(dir / "e2", "");
    write_file(dir / ".h1", "hidden");
    write_file(dir / "h2", "hidden");
    fs::create_directory(dir / ".d");
    write_file(dir / ".d" / "h3", "hidden");
    write_file(dir / "big1", std::string(5000, 'b'));
    write_file(dir / "big2", std::string(5000, 'b'));
    duplicate_options o;
    CHECK(scan(dir.path(), o) == groups{{dir / ".d" / "h3", dir / ".h1", dir / "h2"},
                                        {dir / "big1", dir / "big2"},
                                        {dir / "e1", dir / "e2"}});
    o.include_empty = false;
    o.include_hidden = false;
    CHECK(scan(dir.path(), o) == groups{{dir / "big1", dir / "big2"}});
    o.include_hidden = true;
    o.min_size = 7;
    CHECK(scan(dir.path(), o) == groups{{dir / "big1", dir / "big2"}});
    o.min_size = 0;
    o.max_size = 6;
    CHECK(scan(dir.path(), o) == groups{{dir / ".d" / "h3", dir / ".h1", dir / "h2"}});
}

TEST_CASE("find_duplicates: hard links are one file unless asked", "[compare][duplicates]") {
    temp_dir dir;
    write_file(dir / "a", "linked content");
    fs::create_hard_link(dir / "a", dir / "b");
    fs::create_hard_link(dir / "a", dir / "c");
    CHECK(scan(dir.path()) == groups{}); // one file, three names
    write_file(dir / "copy", "linked content");
    CHECK(scan(dir.path()) == groups{{dir / "a", dir / "copy"}}); // first name in order
    duplicate_options h;
    h.hardlinks_are_duplicates = true;
    CHECK(scan(dir.path(), h) == groups{{dir / "a", dir / "b", dir / "c", dir / "copy"}});
    // Even with hard links as duplicates, a path given twice is one file.
    CHECK(scan(std::vector<fs::path>{dir / "a", dir / "a"}, h) == groups{});
}

#if !defined(_WIN32) // symbolic links need a privilege on Windows
TEST_CASE("find_duplicates: symbolic links, dangling links and loops", "[compare][duplicates]") {
    temp_dir dir;
    fs::create_directories(dir / "d" / "e");
    write_file(dir / "d" / "f", "content");
    write_file(dir / "d" / "e" / "g", "content");
    fs::create_symlink(dir / "d" / "f", dir / "link-to-f");
    fs::create_symlink("nowhere", dir / "dangling");
    fs::create_symlink("..", dir / "d" / "e" / "loop"); // d/e/loop -> d
    fs::create_directory_symlink(dir / "d", dir / "link-to-d");
    duplicate_options o;
    const groups want{{dir / "d" / "e" / "g", dir / "d" / "f"}};
    CHECK(scan(dir.path(), o) == want); // links not followed
    o.follow_symlinks = true;
    // Followed: a link to a file is the same inode (one file, under its first name); the
    // loop and the second way into d are walked once, so the result is finite and the same.
    CHECK(scan(dir.path(), o) == want);
    o.hardlinks_are_duplicates = true; // now the link counts, as a second path to f
    CHECK(scan(dir.path(), o) ==
          groups{{dir / "d" / "e" / "g", dir / "d" / "f", dir / "link-to-f"}});
}
#endif

#if !defined(_WIN32) // FIFOs
TEST_CASE("find_duplicates: FIFOs and other special files are skipped", "[compare][duplicates]") {
    temp_dir dir;
    REQUIRE(::mkfifo((dir / "fifo1").c_str(), 0600) == 0);
    REQUIRE(::mkfifo((dir / "fifo2").c_str(), 0600) == 0);
    write_file(dir / "a", "x");
    write_file(dir / "b", "x");
    CHECK(scan(dir.path()) == groups{{dir / "a", dir / "b"}}); // and no open() hangs
}
#endif

TEST_CASE("find_duplicates: a file changed or removed during the scan is left out",
          "[compare][duplicates]") {
    // 50 000 bytes: the small-file path (hashed whole, then compared); 200 000: the big-file
    // path (probe, hash, compare).
    for (std::size_t size : {std::size_t{50000}, std::size_t{200000}}) {
        CAPTURE(size);
        temp_dir dir;
        const std::string s = bytes_of(size);
        for (const char* name : {"a", "b", "c", "d"}) {
            write_file(dir / name, s);
        }
        std::vector<fs::path> reported;
        duplicate_options o;
        o.on_error = [&](const fastread::duplicate_error& e) { reported.push_back(e.path); };
        bool changed = false;
        o.on_progress = [&](const fastread::duplicate_progress& p) {
            // After hashing, before the byte comparison: rewrite c (same size, other bytes)
            // and remove d.
            if (p.stage == "compare" && !changed) {
                changed = true;
                std::string other = s;
                other[size / 2] = static_cast<char>(other[size / 2] ^ 1);
                write_file(dir / "c", other);
                fs::remove(dir / "d");
            }
        };
        CHECK(scan(dir.path(), o) == groups{{dir / "a", dir / "b"}});
        CHECK(changed);
        CHECK(std::count(reported.begin(), reported.end(), dir / "d") == 1);
    }
}

#if !defined(_WIN32) // as_unprivileged forks; POSIX permission bits
TEST_CASE("find_duplicates: unreadable files and directories are reported and skipped",
          "[compare][duplicates]") {
    temp_dir dir;
    fs::permissions(dir.path(), fs::perms::all); // the unprivileged child must get in
    fs::create_directories(dir / "closed");
    write_file(dir / "closed" / "inside", "dup");
    write_file(dir / "r1", "dup");
    write_file(dir / "r2", "dup");
    write_file(dir / "locked", "dup");
    fs::permissions(dir / "locked", fs::perms::none);
    fs::permissions(dir / "closed", fs::perms::none);
    // Exit status: 0 only if the groups and the reported paths are exactly as expected.
    const int status = as_unprivileged([&] {
        std::vector<fs::path> reported;
        duplicate_options o;
        o.on_error = [&](const fastread::duplicate_error& e) {
            if (e.error == std::errc::permission_denied) {
                reported.push_back(e.path);
            }
        };
        const groups got = scan(dir.path(), o);
        std::sort(reported.begin(), reported.end());
        const bool ok = got == groups{{dir / "r1", dir / "r2"}} &&
                        reported == std::vector<fs::path>{dir / "closed", dir / "locked"};
        return ok ? 0 : 1;
    });
    fs::permissions(dir / "closed", fs::perms::owner_all);
    CHECK(status == 0);
}
#endif

TEST_CASE("find_duplicates: the same groups with one or several reading threads",
          "[compare][duplicates]") {
    // 600 small files in 30 directories, each equal to exactly one other, of 37 sizes:
    // enough sets for the comparing threads to share.
    temp_dir dir;
    groups want;
    for (int i = 0; i < 600; ++i) {
        const fs::path d = dir / ("d" + std::to_string(i % 30));
        fs::create_directories(d);
        std::string content = "file " + std::to_string(i % 300);
        content.resize(12 + static_cast<std::size_t>(i % 300 % 37), '.');
        write_file(d / ("f" + std::to_string(i)), content);
    }
    for (int i = 0; i < 300; ++i) {
        std::vector<fs::path> g{dir / ("d" + std::to_string(i % 30)) / ("f" + std::to_string(i)),
                                dir / ("d" + std::to_string((i + 300) % 30)) /
                                    ("f" + std::to_string(i + 300))};
        std::sort(g.begin(), g.end());
        want.push_back(g);
    }
    std::sort(want.begin(), want.end());
    for (unsigned threads : {0u, 1u, 2u, 3u}) { // 0: one per CPU, growing when reads wait
        CAPTURE(threads);
        duplicate_options o;
        o.threads = threads;
        CHECK(scan(dir.path(), o) == want);
    }
}

TEST_CASE("find_duplicates: small files of one size too many to hold at once",
          "[compare][duplicates]") {
    // 61 440 bytes each: 150 copies of s, 20 of t (s with its middle byte changed) and 10
    // files that differ from s in the last byte only, 11 MB in all, over the 8 MiB that
    // the small-file pass holds in memory per thread. With xxHash they are split by a hash
    // of each file first, then the 150 (still too many) compared file by file and the 20
    // in memory; without, all file by file. The same groups either way.
    temp_dir dir;
    const std::string s = bytes_of(61440);
    std::string t = s;
    t[30720] = static_cast<char>(t[30720] ^ 1);
    std::vector<fs::path> copies_of_s, copies_of_t;
    for (int i = 0; i < 150; ++i) {
        copies_of_s.push_back(dir / ("s" + std::to_string(i)));
        write_file(copies_of_s.back(), s);
    }
    for (int i = 0; i < 20; ++i) {
        copies_of_t.push_back(dir / ("t" + std::to_string(i)));
        write_file(copies_of_t.back(), t);
    }
    for (int i = 0; i < 10; ++i) {
        std::string close_copy = s;
        close_copy.back() = static_cast<char>(close_copy.back() ^ (i + 1));
        write_file(dir / ("near" + std::to_string(i)), close_copy);
    }
    std::sort(copies_of_s.begin(), copies_of_s.end());
    std::sort(copies_of_t.begin(), copies_of_t.end());
    CHECK(scan(dir.path()) == groups{copies_of_s, copies_of_t});
}

TEST_CASE("find_duplicates: one size, several groups, split while all are read at once",
          "[compare][duplicates]") {
    // 300 000 bytes: past the small-file pass. Three copies of x, two of y (differs from x
    // at byte 200 000, in a later block), two of z (differs at byte 5), one that differs
    // from x in its last byte only, and one in its first byte only.
    temp_dir dir;
    const std::string x = bytes_of(300000);
    auto changed = [&](std::size_t at) {
        std::string s = x;
        s[at] = static_cast<char>(s[at] ^ 0x55);
        return s;
    };
    for (const char* name : {"x1", "x2", "x3"}) {
        write_file(dir / name, x);
    }
    write_file(dir / "y1", changed(200000));
    write_file(dir / "y2", changed(200000));
    write_file(dir / "z1", changed(5));
    write_file(dir / "z2", changed(5));
    write_file(dir / "last", changed(x.size() - 1));
    write_file(dir / "first", changed(0));
    CHECK(scan(dir.path()) == groups{{dir / "x1", dir / "x2", dir / "x3"},
                                     {dir / "y1", dir / "y2"},
                                     {dir / "z1", dir / "z2"}});
}

TEST_CASE("find_duplicates: more files of one size than are compared at once",
          "[compare][duplicates]") {
    // 80 files of 70 000 bytes (more than the 64 opened at once): 70 copies, 3 copies of a
    // version that differs in the middle, and 7 files that each differ somewhere else.
    temp_dir dir;
    const std::string s = bytes_of(70000);
    groups want(2);
    for (int i = 0; i < 80; ++i) {
        std::string content = s;
        if (i >= 70 && i < 73) {
            content[35000] = 'm';
        } else if (i >= 73) {
            content[static_cast<std::size_t>(i - 73) * 9999] ^= 1;
        }
        const fs::path path = dir / ("f" + std::to_string(i));
        write_file(path, content);
        if (i < 73) {
            want[i < 70 ? 0 : 1].push_back(path);
        }
    }
    for (auto& g : want) {
        std::sort(g.begin(), g.end());
    }
    std::sort(want.begin(), want.end());
    CHECK(scan(dir.path()) == want);
}

#if !defined(_WIN32) // device reads counted per thread (getrusage)
TEST_CASE("find_duplicates' reads tell the thread team when they wait for the device",
          "[compare][duplicates]") {
    temp_dir dir;
    const std::string s = bytes_of(256 * 1024);
    write_file(dir / "f", s);
    const int fd = ::open((dir / "f").c_str(), O_RDONLY | O_CLOEXEC);
    REQUIRE(fd >= 0);
    fastread::detail::unique_fd guard(fd);
    int waits = 0;
    fastread::detail::cache_miss_probe miss_probe;
    miss_probe.on_miss = [&] { ++waits; };
    miss_probe.probing = true;
    std::string got(s.size() + 10, '\0');
    int read_error = 0;
    // Just written: in the page cache, so the RWF_NOWAIT read takes it all.
    CHECK(fastread::detail::pread_full_probing(fd, got.data(), got.size(), 0, "f", &miss_probe,
                                               read_error) == s.size());
    CHECK(read_error == 0);
    CHECK(got.substr(0, s.size()) == s);
    CHECK(waits == 0);
    CHECK(miss_probe.probing);
    if (on_memory_file_system(dir.path())) {
        WARN("skipped the evicted half: " << dir.path() << " is on tmpfs/ramfs");
        return;
    }
    // Evicted: the first read would wait, so the probe hears of it once, stops probing, and
    // the bytes still arrive, from any offset. With only the POSIX fallbacks (no preadv2)
    // no read can tell: the probe hears nothing and the bytes arrive all the same. The
    // kernel may hold on to, or bring back, pages of a file just evicted (a folio it could
    // not drop yet, read-around for another reader while the machine is busy: seen under a
    // parallel ctest: up to 3 rounds in a row), so up to 20 rounds of evict-then-read, 20 ms
    // apart; the mechanism must be heard in one of them (in none where it is broken).
    constexpr int heard = FASTREAD_LINUX_CALLS ? 1 : 0;
    for (int round = 0; round < 20; ++round) {
        if (round > 0) {
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
        // Written back first: a page still dirty is not dropped (then the read below, which
        // may fall on one, would not wait).
        fastread_test::sync_file(dir / "f");
        fastread::page_cache::evict(dir / "f");
        if (round == 0 && fastread::page_cache::resident_fraction(dir / "f") > 0.5) {
            WARN("skipped the evicted half: this file system ignores POSIX_FADV_DONTNEED");
            return;
        }
        waits = 0;
        miss_probe.probing = true;
        std::fill(got.begin(), got.end(), '\0');
        CHECK(fastread::detail::pread_full_probing(fd, got.data(), 5000, 100000, "f", &miss_probe,
                                                   read_error) == 5000);
        CHECK(got.substr(0, 5000) == s.substr(100000, 5000));
        if (waits == heard) {
            break;
        }
        WARN("round " << round << ": the evicted bytes were read without waiting");
    }
    CHECK(waits == heard);
    CHECK(miss_probe.probing == (heard == 0));
    CHECK(fastread::detail::pread_full_probing(fd, got.data(), got.size(), 0, "f", &miss_probe,
                                               read_error) == s.size());
    CHECK(read_error == 0);
    CHECK(got.substr(0, s.size()) == s);
    CHECK(waits == heard);
}
#endif

TEST_CASE("find_duplicates: a directory big enough to be stat'ed by several threads",
          "[compare][duplicates]") {
    // 1300 files in one directory (stat'ed in parts of 512 names, shared between threads):
    // file i equals file i + 650, a pair that crosses parts; "zsub" (the last name, so in
    // the last part) holds a third copy of f0000.
    temp_dir dir;
    auto name = [](int i) {
        std::string n = std::to_string(i);
        return "f" + std::string(4 - n.size(), '0') + n;
    };
    groups want;
    for (int i = 0; i < 1300; ++i) {
        write_file(dir / name(i), "content " + std::to_string(i % 650));
    }
    fs::create_directories(dir / "zsub");
    write_file(dir / "zsub" / "copy", "content 0");
    for (int i = 0; i < 650; ++i) {
        want.push_back({dir / name(i), dir / name(i + 650)});
    }
    want[0].push_back(dir / "zsub" / "copy");
    std::sort(want.begin(), want.end());
    for (unsigned threads : {0u, 1u, 3u}) {
        CAPTURE(threads);
        duplicate_options o;
        o.threads = threads;
        CHECK(scan(dir.path(), o) == want);
    }
}

// POSIX only: the descriptor limit (RLIMIT_NOFILE), and descriptors of /dev/null.
#if !defined(_WIN32)
namespace {

// Lowers RLIMIT_NOFILE's soft limit to what is open now plus `room`, for its lifetime.
class descriptor_limit {
  public:
    explicit descriptor_limit(std::size_t room) {
        REQUIRE(::getrlimit(RLIMIT_NOFILE, &saved_) == 0);
        rlimit lower = saved_;
        lower.rlim_cur = static_cast<rlim_t>(open_now() + room);
        REQUIRE(lower.rlim_cur <= saved_.rlim_cur);
        REQUIRE(::setrlimit(RLIMIT_NOFILE, &lower) == 0);
    }
    ~descriptor_limit() { ::setrlimit(RLIMIT_NOFILE, &saved_); }
    descriptor_limit(const descriptor_limit&) = delete;
    descriptor_limit& operator=(const descriptor_limit&) = delete;

    static std::size_t open_now() {
        std::size_t n = 0;
        for (const auto& e : fs::directory_iterator("/proc/self/fd")) {
            (void)e;
            ++n;
        }
        return n - 1; // the iterator's own descriptor
    }

  private:
    rlimit saved_{};
};

// `sets` sets of `per_set` identical files, set s of `bytes` + s bytes (over the small-file
// size, so that a set is compared with all its files open at once; one size per set, so
// that each set is a job of its own).
groups make_sets(const fs::path& dir, int sets, int per_set, std::size_t bytes) {
    groups want;
    for (int s = 0; s < sets; ++s) {
        const std::string content =
            bytes_of(bytes + static_cast<std::size_t>(s), static_cast<unsigned>(s + 7));
        std::vector<fs::path> g;
        for (int f = 0; f < per_set; ++f) {
            g.push_back(dir / ("s" + std::to_string(s) + "-" + std::to_string(f)));
            write_file(g.back(), content);
        }
        std::sort(g.begin(), g.end());
        want.push_back(g);
    }
    std::sort(want.begin(), want.end());
    return want;
}

} // namespace

TEST_CASE("find_duplicates: few descriptors left (RLIMIT_NOFILE) loses no group",
          "[compare][duplicates]") {
    // 8 sets of 20 files of 70 KB. With 16 descriptors free and a thread per CPU (or more)
    // each opening a whole set, the sets ran out (EMFILE) and lost files; the open-file
    // budget now comes from the limit.
    temp_dir dir;
    const groups want = make_sets(dir.path(), 8, 20, 70000);
    std::vector<std::string> errors;
    duplicate_options o;
    o.on_error = [&](const fastread::duplicate_error& e) {
        errors.push_back(e.path.string() + ": " + e.operation);
    };
    groups got;
    {
        descriptor_limit limit(16);
        got = scan(dir.path(), o);
    }
    CHECK(errors.empty());
    CHECK(got == want);
}

TEST_CASE("find_duplicates: descriptors taken by the application during the scan lose no group",
          "[compare][duplicates]") {
    // One comparing thread; after its first set, the application opens all but 3 of the
    // descriptors left: the next sets cannot all be open at once (EMFILE) and are compared
    // file by file instead.
    temp_dir dir;
    const groups want = make_sets(dir.path(), 6, 5, 70000);
    std::vector<std::string> errors;
    std::vector<int> held;
    duplicate_options o;
    o.threads = 1;
    o.on_error = [&](const fastread::duplicate_error& e) {
        errors.push_back(e.path.string() + ": " + e.operation);
    };
    o.on_progress = [&](const fastread::duplicate_progress& p) {
        if (std::string_view(p.stage) == "compare" && p.done == 1 && held.empty()) {
            for (int fd; (fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC)) >= 0;) {
                held.push_back(fd);
            }
            for (int k = 0; k < 3 && !held.empty(); ++k) {
                ::close(held.back());
                held.pop_back();
            }
        }
    };
    groups got;
    {
        descriptor_limit limit(64);
        got = scan(dir.path(), o);
        for (int fd : held) {
            ::close(fd);
        }
    }
    CHECK_FALSE(held.empty()); // the descriptors were taken
    CHECK(errors.empty());
    CHECK(got == want);
}

#endif

TEST_CASE("find_duplicates: a small file replaced after the walk is reported as changed, not "
          "grouped",
          "[compare][duplicates]") {
    // c is replaced (rename over it) by a file of the same bytes between the walk and the
    // comparison: the bytes match, but the file is not the one the walk saw.
    temp_dir dir;
    const std::string content = bytes_of(100);
    for (const char* name : {"a", "b", "c"}) {
        write_file(dir / name, content);
    }
    fs::create_directory(dir / "sub"); // not walked: the scan is not recursive
    write_file(dir / "sub" / "c", content);
    std::vector<std::string> errors;
    duplicate_options o;
    o.recursive = false;
    o.on_error = [&](const fastread::duplicate_error& e) {
        errors.push_back(e.path.string() + ": " + e.operation);
    };
    o.on_progress = [&](const fastread::duplicate_progress& p) {
        if (std::string_view(p.stage) == "compare" && p.done == 0) {
            fs::rename(dir / "sub" / "c", dir / "c");
        }
    };
    CHECK(scan(dir.path(), o) == groups{{dir / "a", dir / "b"}});
    CHECK(errors == std::vector<std::string>{(dir / "c").string() + ": changed"});
}
