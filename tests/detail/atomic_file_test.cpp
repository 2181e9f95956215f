// What fastread's writers (ppm::save, string_table::write, string_table::writer::finish,
// all through detail::atomic_file) do to what the target path already names.

#include <fastread/ppm.hpp>
#include <fastread/string_table.hpp>

#include <catch2/catch.hpp>

#include <cerrno>
#include <cstring>
#include <functional>
#include <set>
#include <string>
#include <system_error>
#include <vector>

#if !defined(_WIN32) // permission bits, FIFOs and devices: the POSIX-only parts below
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#endif

#include "../test_util.hpp"

namespace fs = std::filesystem;
using fastread_test::read_file;
using fastread_test::temp_dir;
using fastread_test::write_file;

namespace {

struct named_writer {
    const char* name;
    std::function<void(const fs::path&)> write;
};

std::vector<named_writer> writers() {
    return {
        {"ppm::save",
         [](const fs::path& p) {
             fastread::ppm::image<std::uint8_t> img;
             img.width = 3;
             img.height = 2;
             img.maxval = 255;
             img.samples.assign(18, 7);
             fastread::ppm::save(p, img);
         }},
        {"string_table::write",
         [](const fs::path& p) {
             const std::vector<std::string> strings = {"alpha", "beta"};
             fastread::string_table::write(p, strings);
         }},
        {"string_table::writer",
         [](const fs::path& p) {
             fastread::string_table::writer w(p);
             w.add("alpha");
             w.add("beta");
             w.finish();
         }},
    };
}

std::set<std::string> names_in(const fs::path& dir) {
    std::set<std::string> names;
    for (const auto& entry : fs::directory_iterator(dir)) {
        names.insert(entry.path().filename().string());
    }
    return names;
}

bool is_link(const fs::path& p) {
    return fs::is_symlink(fs::symlink_status(p));
}

#if !defined(_WIN32)
struct stat lstat_of(const fs::path& p) {
    struct stat st {};
    REQUIRE(::lstat(p.c_str(), &st) == 0);
    return st;
}
#endif

// Calls `f`, which must throw std::system_error with `err`, naming `named`.
template <class F>
void check_refused(F f, int err, const fs::path& named) {
    try {
        f();
        FAIL("the write was not refused");
    } catch (const std::system_error& e) {
        CHECK(e.code().value() == err);
        CHECK_THAT(e.what(), Catch::Contains(named.string()));
    }
}

} // namespace

#if !defined(_WIN32) // Windows keeps no permission bits, owner or umask to carry over
TEST_CASE("writers keep an existing file's permission bits, and a new file follows the umask",
          "[writers]") {
    temp_dir dir;
    const mode_t old_umask = ::umask(022);
    for (const named_writer& w : writers()) {
        CAPTURE(w.name);
        const fs::path path = dir / "private";
        fs::remove(path);
        w.write(path);
        CHECK((lstat_of(path).st_mode & 07777) == 0644);
        for (mode_t mode : {mode_t{0600}, mode_t{0640}, mode_t{0755}}) {
            REQUIRE(::chmod(path.c_str(), mode) == 0);
            w.write(path);
            CHECK((lstat_of(path).st_mode & 07777) == mode);
        }
        if (::geteuid() == 0) { // only root can give a file away, so only root can keep it
            REQUIRE(::chown(path.c_str(), 65534, 65534) == 0);
            w.write(path);
            CHECK(lstat_of(path).st_uid == 65534);
            CHECK(lstat_of(path).st_gid == 65534);
        }
    }
    ::umask(old_umask);
}
#endif

TEST_CASE("writers write through symbolic links to the file they name", "[writers]") {
    for (const named_writer& w : writers()) {
        CAPTURE(w.name);
        temp_dir dir;
        fs::create_directory(dir / "elsewhere");
        w.write(dir / "reference");
        const std::string want = read_file(dir / "reference");

        write_file(dir / "real", "old");
#if defined(_WIN32)
        std::error_code ec; // symbolic links need a privilege or developer mode on Windows
        fs::create_symlink("real", dir / "link", ec);
        if (ec) {
            WARN("skipped: no symbolic links here: " << ec.message());
            return;
        }
#else
        fs::create_symlink("real", dir / "link"); // relative
#endif
        fs::create_symlink(dir / "link", dir / "link2"); // absolute, to a link
        fs::create_symlink(dir / "elsewhere" / "far", dir / "dangling");
        w.write(dir / "link2");
        CHECK(read_file(dir / "real") == want);
        CHECK(is_link(dir / "link"));
        CHECK(is_link(dir / "link2"));
        // A dangling link: the file it names is created, in its own directory.
        w.write(dir / "dangling");
        CHECK(read_file(dir / "elsewhere" / "far") == want);
        CHECK(is_link(dir / "dangling"));
        CHECK(names_in(dir / "elsewhere") == std::set<std::string>{"far"});
        // A loop: ELOOP, and nothing created.
        fs::create_symlink("loop-b", dir / "loop-a");
        fs::create_symlink("loop-a", dir / "loop-b");
        check_refused([&] { w.write(dir / "loop-a"); }, ELOOP, dir / "loop-a");
        CHECK(names_in(dir.path()) == std::set<std::string>{"dangling", "elsewhere", "link",
                                                            "link2", "loop-a", "loop-b", "real",
                                                            "reference"});
    }
}

TEST_CASE("writers refuse a file with other hard links, and any non-regular target",
          "[writers][error]") {
    for (const named_writer& w : writers()) {
        CAPTURE(w.name);
        temp_dir dir;
        write_file(dir / "linked", "old");
        fs::create_hard_link(dir / "linked", dir / "other-name");
        check_refused([&] { w.write(dir / "linked"); }, EMLINK, dir / "linked");
        CHECK(read_file(dir / "linked") == "old");
        CHECK(read_file(dir / "other-name") == "old");
#if !defined(_WIN32) // MinGW's hard_link_count says 1 for every file (its stat's st_nlink)
        CHECK(fs::hard_link_count(dir / "linked") == 2);
#endif

        fs::create_directory(dir / "directory");
        check_refused([&] { w.write(dir / "directory"); }, EISDIR, dir / "directory");
        CHECK(fs::is_directory(dir / "directory"));

        std::set<std::string> expected = {"directory", "linked", "other-name"};
#if !defined(_WIN32) // no FIFOs or device nodes in Windows' file system
        REQUIRE(::mkfifo((dir / "fifo").c_str(), 0600) == 0);
        check_refused([&] { w.write(dir / "fifo"); }, EINVAL, dir / "fifo"); // never blocks
        CHECK(S_ISFIFO(lstat_of(dir / "fifo").st_mode));

        expected.insert("fifo");
        // A character device like /dev/null (mknod needs CAP_MKNOD: root, most containers).
        if (::mknod((dir / "null").c_str(), S_IFCHR | 0666, makedev(1, 3)) == 0) {
            check_refused([&] { w.write(dir / "null"); }, EINVAL, dir / "null");
            CHECK(S_ISCHR(lstat_of(dir / "null").st_mode));
            expected.insert("null");
        } else {
            WARN("device case skipped: mknod: " << std::strerror(errno));
        }
#endif
        // Refused before anything was created: no temporary file left.
        CHECK(names_in(dir.path()) == expected);
    }
}

TEST_CASE("writers write any name the file system takes (a 254-byte name)", "[writers]") {
    for (const named_writer& w : writers()) {
        CAPTURE(w.name);
        temp_dir dir;
        const fs::path path = dir / std::string(254, 'n');
        w.write(path);
        w.write(path); // and replace it
        w.write(dir / "reference");
        CHECK(read_file(path) == read_file(dir / "reference"));
        CHECK(names_in(dir.path()).size() == 2);
    }
}
