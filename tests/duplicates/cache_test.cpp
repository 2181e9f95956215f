// The duplicate finder's hash cache (duplicate_options::cache, duplicates/detail/cache.hpp): its
// file format and what makes it load, go stale or count as corrupt; a re-run that reads no
// file data; and every way a file can change under it (touched, renamed, replaced by one of
// the same size, rewritten with its old mtime, changed during the scan), a hash version
// change and a truncated cache.
#include <fastread/duplicates.hpp>

#include <catch2/catch.hpp>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#if !defined(_WIN32) // utimensat; /proc/self/io
#include <fcntl.h>
#include <sys/stat.h>
#endif

#include "../test_util.hpp"

#if FASTREAD_HAVE_XXHASH

using fastread::duplicate_options;
using fastread::detail::hash_cache;
using fastread_test::temp_dir;
using fastread_test::write_file;
namespace fs = std::filesystem;

namespace {

using groups = std::vector<std::vector<fs::path>>;

hash_cache::state load(hash_cache& c, const fs::path& path) {
    return c.load(path);
}

// An entry holding both hashes: whole (low, ~low), probe (low + 1, low).
fastread::detail::hash_cache_entry entry(std::uint64_t inode, std::uint64_t low) {
    return {{7, inode, 100 + inode, 1000 + static_cast<std::int64_t>(inode), 2000},
            true,
            true,
            {low + 1, low},
            {low, ~low}};
}

// The cache key of a file as it is now.
fastread::detail::hash_cache_key key_of(const fs::path& path) {
    return fastread::detail::cache_key_of(
        fastread::detail::stat_fd(fastread::detail::open_read_only(path).get()));
}

// Bytes this process has read through read(2) and its relatives so far (Linux), or -1.
std::int64_t bytes_read() {
    std::ifstream io("/proc/self/io");
    for (std::string key; io >> key;) {
        std::int64_t value = 0;
        io >> value;
        if (key == "rchar:") {
            return value;
        }
    }
    return -1;
}

// A tree of duplicates in every job of the finder: small files (read whole), big files
// (64 KiB and more), empty files, a unique size. Written, then aged past the cache's 100 ms
// window for files that just changed.
struct tree {
    temp_dir dir;
    std::string small = fastread_test::bytes_of(3000);
    std::string big = fastread_test::bytes_of(300000);
    std::string big_other = big;
    std::uint64_t data_bytes = 0; // bytes of the files in groups of one size
    // What a first run with a cache reads: the small files whole; the first and last 4 KiB
    // of b1, b2 and b3; then b1 and b2 whole (b3's first 4 KiB differ: not read whole).
    std::uint64_t first_run_bytes = 0;

    tree() {
        big_other[1000] = static_cast<char>(big_other[1000] ^ 1);
        fs::create_directories(dir / "sub");
        write_file(dir / "s1", small);
        write_file(dir / "sub" / "s2", small);
        write_file(dir / "b1", big);
        write_file(dir / "sub" / "b2", big);
        write_file(dir / "b3", big_other); // differs from b1 in its first 4 KiB
        write_file(dir / "e1", "");
        write_file(dir / "e2", "");
        write_file(dir / "unique", "no other file has this size");
        data_bytes = 2 * small.size() + 3 * big.size();
        first_run_bytes = 2 * small.size() + 2 * big.size() + 3 * 2 * 4096;
        age();
    }
    static void age() { std::this_thread::sleep_for(std::chrono::milliseconds(250)); }
    fs::path cache() const { return dir / "cache" / "hashes"; }
    groups expected() const {
        return {{dir / "b1", dir / "sub" / "b2"},
                {dir / "e1", dir / "e2"},
                {dir / "s1", dir / "sub" / "s2"}};
    }
};

struct scan_result {
    groups found;
    std::vector<fastread::duplicate_error> errors;
    std::int64_t read = 0; // bytes read during the scan (/proc/self/io), or negative
};

scan_result scan(const fs::path& root, const fs::path& cache, bool verify = false) {
    duplicate_options o;
    o.cache = cache;
    o.verify = verify;
    scan_result r;
    o.on_error = [&](const fastread::duplicate_error& e) { r.errors.push_back(e); };
    const std::int64_t before = bytes_read();
    std::vector<fs::path> roots{root};
    r.found = fastread::find_duplicates(roots, o);
    r.read = before < 0 ? -1 : bytes_read() - before;
    return r;
}

#if !defined(_WIN32)
// Sets a file's modification time (its status-change time becomes now, as always).
void set_mtime(const fs::path& path, std::int64_t ns) {
    const struct timespec times[2] = {{0, UTIME_OMIT}, {ns / 1000000000, ns % 1000000000}};
    REQUIRE(::utimensat(AT_FDCWD, path.c_str(), times, 0) == 0);
}
#endif

} // namespace

TEST_CASE("hash_cache keeps its entries across a save and a load", "[duplicates][cache]") {
    temp_dir dir;
    const fs::path path = dir / "deeper" / "hashes";
    hash_cache c;
    CHECK(load(c, path) == hash_cache::state::missing);
    CHECK(c.size() == 0);
    c.add(entry(1, 11));
    c.add(entry(2, 22));
    c.add(entry(2, 23)); // replaces what was kept for inode 2
    c.save(path);        // creates the directory
    CHECK(fs::file_size(path) ==
          hash_cache::header_bytes + 2 * hash_cache::entry_bytes + hash_cache::trailer_bytes);

    hash_cache d;
    REQUIRE(load(d, path) == hash_cache::state::loaded);
    CHECK(d.size() == 2);
    REQUIRE(d.find(entry(1, 0).key) != nullptr);
    CHECK(*d.find(entry(1, 0).key) == entry(1, 11));
    CHECK(*d.find(entry(2, 0).key) == entry(2, 23));
    CHECK(d.find(entry(3, 0).key) == nullptr);
    // Any field of the key that differs: another state of the file, not found.
    for (int field = 0; field < 5; ++field) {
        CAPTURE(field);
        fastread::detail::hash_cache_key k = entry(1, 0).key;
        switch (field) {
        case 0:
            ++k.device;
            break;
        case 1:
            ++k.inode;
            break;
        case 2:
            ++k.size;
            break;
        case 3:
            ++k.mtime_ns;
            break;
        default:
            ++k.ctime_ns;
            break;
        }
        CHECK(d.find(k) == nullptr);
    }
}

TEST_CASE("hash_cache merges what it keeps of one state of a file and replaces another state",
          "[duplicates][cache]") {
    temp_dir dir;
    const fs::path path = dir / "hashes";
    hash_cache c;
    fastread::detail::hash_cache_entry probe_only = entry(1, 11);
    probe_only.has_whole = false;
    probe_only.whole = {0, 0};
    c.add(probe_only);
    c.add(fastread::detail::hash_cache_entry{entry(1, 0).key}); // holds nothing: not kept
    REQUIRE(c.find(entry(1, 0).key) != nullptr);
    CHECK(*c.find(entry(1, 0).key) == probe_only);
    // The whole-file hash of the same state joins the probe hash.
    fastread::detail::hash_cache_entry whole_only = entry(1, 11);
    whole_only.has_probe = false;
    whole_only.probe = {0, 0};
    c.add(whole_only);
    CHECK(*c.find(entry(1, 0).key) == entry(1, 11));
    // Another state of the file (its mtime moved): replaces both.
    fastread::detail::hash_cache_entry later = probe_only;
    ++later.key.mtime_ns;
    c.add(later);
    CHECK(c.size() == 1);
    CHECK(c.find(entry(1, 0).key) == nullptr);
    REQUIRE(c.find(later.key) != nullptr);
    CHECK(*c.find(later.key) == later);
    // A probe-only entry survives the file.
    c.save(path);
    hash_cache d;
    REQUIRE(load(d, path) == hash_cache::state::loaded);
    REQUIRE(d.find(later.key) != nullptr);
    CHECK(*d.find(later.key) == later);
}

// Rewrites the checksum of a cache file's bytes after a test changed them, so that only
// what it changed can make the file stale or corrupt.
std::string with_checksum(std::string bytes) {
    const std::size_t body = bytes.size() - hash_cache::trailer_bytes;
    const XXH128_hash_t h = XXH3_128bits(bytes.data(), body);
    for (int i = 0; i < 8; ++i) {
        bytes[body + i] = static_cast<char>(h.low64 >> (8 * i));
        bytes[body + 8 + i] = static_cast<char>(h.high64 >> (8 * i));
    }
    return bytes;
}

TEST_CASE("hash_cache: a file of format version 1 is stale and unknown entry flags are corrupt",
          "[duplicates][cache][error]") {
    temp_dir dir;
    const fs::path path = dir / "hashes";
    hash_cache c;
    c.add(entry(1, 11));
    c.save(path);
    const std::string good = fastread_test::read_file(path);
    hash_cache d;
    REQUIRE(load(d, path) == hash_cache::state::loaded);
    std::string v1 = good;
    v1[16] = 1; // format version 1 (whole-file hashes only): not read, rebuilt
    write_file(path, with_checksum(v1));
    CHECK(load(d, path) == hash_cache::state::stale);
    CHECK(d.size() == 0);
    const std::size_t flags_at = hash_cache::header_bytes + 40;
    for (const char flags : {'\0', '\4', '\7'}) {
        CAPTURE(static_cast<int>(flags));
        std::string bad = good;
        bad[flags_at] = flags;
        write_file(path, with_checksum(bad));
        CHECK(load(d, path) == hash_cache::state::corrupt);
        CHECK(d.size() == 0);
    }
    write_file(path, with_checksum(good)); // the same bytes: the checksum function is right
    CHECK(load(d, path) == hash_cache::state::loaded);
}

TEST_CASE(
    "hash_cache: another hash version is stale and a damaged file is corrupt and never trusted",
    "[duplicates][cache][error]") {
    temp_dir dir;
    const fs::path path = dir / "hashes";
    hash_cache c;
    c.add(entry(1, 11));
    c.add(entry(2, 22));
    c.save(path, hash_cache::current_hash_version + 1);
    hash_cache d;
    CHECK(load(d, path) == hash_cache::state::stale);
    CHECK(d.size() == 0);
    c.save(path);
    const std::string good = fastread_test::read_file(path);
    REQUIRE(load(d, path) == hash_cache::state::loaded);

    // Truncated anywhere, extended, or any byte changed (header, entry, checksum).
    for (std::size_t keep : {std::size_t{0}, std::size_t{15}, std::size_t{63}, std::size_t{64},
                             good.size() - 16, good.size() - 1}) {
        CAPTURE(keep);
        write_file(path, good.substr(0, keep));
        CHECK(load(d, path) == hash_cache::state::corrupt);
        CHECK(d.size() == 0);
    }
    write_file(path, good + "x");
    CHECK(load(d, path) == hash_cache::state::corrupt);
    for (std::size_t at : {std::size_t{0}, std::size_t{17}, std::size_t{41}, std::size_t{70},
                           good.size() - 30, good.size() - 3}) {
        CAPTURE(at);
        std::string bad = good;
        bad[at] = static_cast<char>(bad[at] ^ 0x10);
        write_file(path, bad);
        CHECK(load(d, path) == hash_cache::state::corrupt);
        CHECK(d.size() == 0);
    }
    // A count that would need more bytes than the file has: corrupt, nothing allocated for it.
    std::string huge = good;
    huge[47] = static_cast<char>(0x7f);
    write_file(path, huge);
    CHECK(load(d, path) == hash_cache::state::corrupt);
    // Not a file: an error naming it.
    fs::create_directory(dir / "directory");
    CHECK_THROWS_WITH(load(d, dir / "directory"), Catch::Contains((dir / "directory").string()));
}

TEST_CASE("find_duplicates with a cache finds the same groups and a re-run reads no file data",
          "[duplicates][cache]") {
    tree t;
    const scan_result first = scan(t.dir.path(), t.cache());
    CHECK(first.found == t.expected());
    CHECK(first.errors.empty());
    hash_cache c;
    REQUIRE(load(c, t.cache()) == hash_cache::state::loaded);
    CHECK(c.size() == 5); // the files of the two non-empty sizes with several files
    const auto kept = [&](const fs::path& p) { return c.find(key_of(p)); };
    for (const fs::path& p :
         {t.dir / "s1", t.dir / "sub" / "s2", t.dir / "b1", t.dir / "sub" / "b2"}) {
        CAPTURE(p);
        REQUIRE(kept(p) != nullptr);
        CHECK(kept(p)->has_probe);
        CHECK(kept(p)->has_whole);
    }
    CHECK(kept(t.dir / "b1")->whole == kept(t.dir / "sub" / "b2")->whole);
    CHECK(kept(t.dir / "b1")->probe == kept(t.dir / "sub" / "b2")->probe);
    // b3's probe hash differs from b1's: it was not read whole, and only its probe is kept.
    REQUIRE(kept(t.dir / "b3") != nullptr);
    CHECK(kept(t.dir / "b3")->has_probe);
    CHECK_FALSE(kept(t.dir / "b3")->has_whole);
    CHECK(kept(t.dir / "b3")->probe != kept(t.dir / "b1")->probe);
    // The hashes are the documented ones (cache.hpp), whichever way they were computed (b1's
    // probe hash with its whole-file hash, b3's alone): XXH3-128 of the first and last 4 KiB,
    // of the whole file when it is 8 KiB or less.
    const auto xxh3 = [](const std::string& bytes) {
        const XXH128_hash_t h = XXH3_128bits(bytes.data(), bytes.size());
        return fastread::detail::hash_128{h.low64, h.high64};
    };
    const auto probe_of = [&](const std::string& bytes) {
        return xxh3(bytes.substr(0, 4096) + bytes.substr(bytes.size() - 4096));
    };
    CHECK(kept(t.dir / "b1")->probe == probe_of(t.big));
    CHECK(kept(t.dir / "b1")->whole == xxh3(t.big));
    CHECK(kept(t.dir / "b3")->probe == probe_of(t.big_other));
    CHECK(kept(t.dir / "s1")->probe == xxh3(t.small));
    CHECK(kept(t.dir / "s1")->whole == xxh3(t.small));
    if (first.read >= 0) {
        CHECK(first.read >= static_cast<std::int64_t>(t.first_run_bytes));
        CHECK(first.read < static_cast<std::int64_t>(t.first_run_bytes + 4096));
    }

    const scan_result again = scan(t.dir.path(), t.cache());
    CHECK(again.found == t.expected());
    CHECK(again.errors.empty());
    if (again.read < 0) {
        WARN("bytes read not counted here (no /proc/self/io)");
    } else {
        // The cache file and /proc/self/io itself, nothing of the tree.
        CHECK(again.read <= static_cast<std::int64_t>(fs::file_size(t.cache())) + 4096);
    }
    // Without the cache the same groups, confirmed byte by byte.
    duplicate_options plain;
    std::vector<fs::path> roots{t.dir.path()};
    CHECK(fastread::find_duplicates(roots, plain) == t.expected());
}

TEST_CASE("find_duplicates' cache: a file touched or renamed or replaced is hashed again",
          "[duplicates][cache]") {
    tree t;
    REQUIRE(scan(t.dir.path(), t.cache()).found == t.expected());
    const auto big = static_cast<std::int64_t>(t.big.size());

    SECTION("touched: same bytes, new times") {
        fs::last_write_time(t.dir / "b1", fs::file_time_type::clock::now());
        tree::age();
        const scan_result r = scan(t.dir.path(), t.cache());
        CHECK(r.found == t.expected());
        if (r.read >= 0) {
            CHECK(r.read >= big);
            CHECK(r.read < 2 * big);
        }
    }
    SECTION("renamed within the tree") {
        fs::rename(t.dir / "b1", t.dir / "sub" / "renamed");
        tree::age();
        const scan_result r = scan(t.dir.path(), t.cache());
        CHECK(r.found == groups{{t.dir / "e1", t.dir / "e2"},
                                {t.dir / "s1", t.dir / "sub" / "s2"},
                                {t.dir / "sub" / "b2", t.dir / "sub" / "renamed"}});
    }
    SECTION("replaced by a file of the same size with other bytes") {
        write_file(t.dir / "new", t.big_other);
        fs::rename(t.dir / "new", t.dir / "b1"); // a new inode under the old name
        tree::age();
        const scan_result r = scan(t.dir.path(), t.cache());
        CHECK(r.found == groups{{t.dir / "b1", t.dir / "b3"},
                                {t.dir / "e1", t.dir / "e2"},
                                {t.dir / "s1", t.dir / "sub" / "s2"}});
        if (r.read >= 0) {
            CHECK(r.read >= big);
        }
    }
#if !defined(_WIN32)
    SECTION("rewritten in place with its old modification time put back") {
        const std::int64_t mtime =
            fastread::detail::stat_fd(fastread::detail::open_read_only(t.dir / "b1").get())
                .mtime_ns;
        {
            std::fstream f(t.dir / "b1", std::ios::in | std::ios::out | std::ios::binary);
            f.seekp(1000);
            f.put(t.big_other[1000]); // now equal to b3
        }
        set_mtime(t.dir / "b1", mtime); // the status-change time still moved
        tree::age();
        const scan_result r = scan(t.dir.path(), t.cache());
        CHECK(r.found == groups{{t.dir / "b1", t.dir / "b3"},
                                {t.dir / "e1", t.dir / "e2"},
                                {t.dir / "s1", t.dir / "sub" / "s2"}});
    }
#endif
}

TEST_CASE("find_duplicates' cache: another hash version or a truncated cache is rebuilt",
          "[duplicates][cache][error]") {
    tree t;
    REQUIRE(scan(t.dir.path(), t.cache()).found == t.expected());
    hash_cache c;
    REQUIRE(load(c, t.cache()) == hash_cache::state::loaded);

    SECTION("written by another version of the hash: ignored whole, not an error") {
        c.save(t.cache(), hash_cache::current_hash_version + 1);
        const scan_result r = scan(t.dir.path(), t.cache());
        CHECK(r.found == t.expected());
        CHECK(r.errors.empty());
        if (r.read >= 0) {
            CHECK(r.read >= static_cast<std::int64_t>(t.first_run_bytes));
        }
    }
    SECTION("truncated: reported, rebuilt") {
        REQUIRE(fastread_test::resize_file(t.cache(), fs::file_size(t.cache()) / 2));
        const scan_result r = scan(t.dir.path(), t.cache());
        CHECK(r.found == t.expected());
        REQUIRE(r.errors.size() == 1);
        CHECK(r.errors[0].path == t.cache());
        CHECK(r.errors[0].operation == "cache");
        CHECK(r.errors[0].error == std::errc::illegal_byte_sequence);
    }
    // Either way the cache is whole again: the next run reads nothing of the tree.
    hash_cache d;
    CHECK(load(d, t.cache()) == hash_cache::state::loaded);
    CHECK(d.size() == 5);
    const scan_result next = scan(t.dir.path(), t.cache());
    CHECK(next.found == t.expected());
    if (next.read >= 0) {
        CHECK(next.read <= static_cast<std::int64_t>(fs::file_size(t.cache())) + 4096);
    }
}

TEST_CASE("find_duplicates' cache: groups rest on the hash unless verify confirms the bytes",
          "[duplicates][cache]") {
    tree t;
    REQUIRE(scan(t.dir.path(), t.cache()).found == t.expected());
    // A cache that says b3 has b1's hash (as a collision would): trusted without verify,
    // found out with it.
    hash_cache c;
    REQUIRE(load(c, t.cache()) == hash_cache::state::loaded);
    REQUIRE(c.find(key_of(t.dir / "b1")) != nullptr);
    fastread::detail::hash_cache_entry forged = *c.find(key_of(t.dir / "b1"));
    forged.key = key_of(t.dir / "b3");
    c.add(forged);
    c.save(t.cache());
    CHECK(scan(t.dir.path(), t.cache()).found ==
          groups{{t.dir / "b1", t.dir / "b3", t.dir / "sub" / "b2"},
                 {t.dir / "e1", t.dir / "e2"},
                 {t.dir / "s1", t.dir / "sub" / "s2"}});
    CHECK(scan(t.dir.path(), t.cache(), true).found == t.expected());
}

TEST_CASE("find_duplicates' cache: files just changed are hashed but not kept and files "
          "changed during the scan are left out",
          "[duplicates][cache]") {
    tree t;
    write_file(t.dir / "s3", t.small); // just now: within the cache's 100 ms window
    const scan_result first = scan(t.dir.path(), t.cache());
    CHECK(first.found == groups{{t.dir / "b1", t.dir / "sub" / "b2"},
                                {t.dir / "e1", t.dir / "e2"},
                                {t.dir / "s1", t.dir / "s3", t.dir / "sub" / "s2"}});
    hash_cache c;
    REQUIRE(load(c, t.cache()) == hash_cache::state::loaded);
    CHECK(c.size() == 5);
    CHECK(c.find(key_of(t.dir / "s3")) == nullptr);

    // Every hash now from the cache; s2 rewritten after the walk (other bytes, same size):
    // reported as changed and left out, though its old hash is still in the cache.
    tree::age();
    REQUIRE(scan(t.dir.path(), t.cache()).errors.empty()); // s3 kept now
    for (const bool verify : {false, true}) {
        CAPTURE(verify);
        duplicate_options o;
        o.cache = t.cache();
        o.verify = verify;
        std::vector<fastread::duplicate_error> errors;
        o.on_error = [&](const fastread::duplicate_error& e) { errors.push_back(e); };
        bool changed = false;
        o.on_progress = [&](const fastread::duplicate_progress& p) {
            if (p.stage == "compare" && !changed) {
                changed = true;
                std::string other = t.small;
                other[10] = static_cast<char>(other[10] ^ 1);
                write_file(t.dir / "sub" / "s2", other);
            }
        };
        std::vector<fs::path> roots{t.dir.path()};
        CHECK(fastread::find_duplicates(roots, o) == groups{{t.dir / "b1", t.dir / "sub" / "b2"},
                                                            {t.dir / "e1", t.dir / "e2"},
                                                            {t.dir / "s1", t.dir / "s3"}});
        REQUIRE(errors.size() == 1);
        CHECK(errors[0].path == t.dir / "sub" / "s2");
        CHECK(errors[0].operation == "changed");
        write_file(t.dir / "sub" / "s2", t.small);
        tree::age();
    }
}

#endif // FASTREAD_HAVE_XXHASH
