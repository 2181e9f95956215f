#include <fastread/page_cache.hpp>
#include <fastread/records.hpp>
#include <fastread/records/positioned_file.hpp> // not in records.hpp in the compiled mode

#include <catch2/catch.hpp>

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>
#include <random>
#include <span>
#include <stdexcept>
#include <string>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#include <fcntl.h>
#if !defined(_WIN32)
#include <sys/resource.h>
#include <unistd.h>
#endif

#include "baselines/fseek_records.hpp"
#include "test_util.hpp"

using fastread::access_method;
using fastread::record_options;
using fastread_test::read_file;
using fastread_test::temp_dir;
using fastread_test::write_file;
namespace fs = std::filesystem;
namespace baseline = fastread::records::baseline;

namespace {

// A 12-byte record: not a divisor of the page size, so some records straddle two pages.
struct triple {
    std::int32_t a, b, c;
    bool operator==(const triple&) const = default;
};

template <class T>
T record_for(std::uint64_t i);
template <>
std::int32_t record_for<std::int32_t>(std::uint64_t i) {
    return static_cast<std::int32_t>(i * 2654435761u + 7);
}
template <>
triple record_for<triple>(std::uint64_t i) {
    const auto x = static_cast<std::int32_t>(i);
    return triple{x, -x, x ^ 0x5a5a5a};
}

// A file of `count` records (plus `tail` extra bytes that make no whole record).
template <class T>
std::vector<T> make_records(const fs::path& path, std::uint64_t count, std::size_t tail = 0) {
    std::vector<T> records(count);
    for (std::uint64_t i = 0; i < count; ++i) {
        records[i] = record_for<T>(i);
    }
    std::string bytes(reinterpret_cast<const char*>(records.data()), count * sizeof(T));
    bytes.append(tail, '\x7f');
    write_file(path, bytes);
    return records;
}

// Random indices in [0, count) with repeats, plus the first and the last record.
std::vector<std::uint64_t> random_indices(std::uint64_t count, std::size_t n, unsigned seed) {
    std::mt19937_64 rng(seed);
    std::vector<std::uint64_t> out{0, count - 1};
    for (std::size_t i = 0; i < n; ++i) {
        out.push_back(rng() % count);
    }
    out.push_back(out[3]); // a repeat for certain
    std::shuffle(out.begin(), out.end(), rng);
    return out;
}

std::vector<record_options> every_method() {
    std::vector<record_options> out;
    for (access_method m : {access_method::automatic, access_method::pread, access_method::mmap,
                            access_method::io_uring}) {
        if (m == access_method::io_uring && !fastread::detail::uring_usable()) {
            continue; // tested separately below
        }
        for (bool sort : {true, false}) {
            record_options o;
            o.method = m;
            o.sort = sort;
            out.push_back(o);
            if (m == access_method::automatic) {
                o.io = fastread::io_mode::map;
                out.push_back(o);
                o.io = fastread::io_mode::read;
                o.threads = 1;
                out.push_back(o);
            }
        }
    }
    return out;
}

std::string describe(const record_options& o) {
    return std::string(fastread::to_string(o.method)) + (o.sort ? " sorted" : " unsorted") +
           " io " + std::string(fastread::to_string(o.io)) + " threads " +
           std::to_string(o.threads);
}

template <class T>
T step(T v) {
    if constexpr (std::is_same_v<T, triple>) {
        return triple{v.a * 31 + 7, v.b + 1, v.c ^ v.a};
    } else {
        return static_cast<T>(static_cast<std::uint32_t>(v) * 31u + 7u);
    }
}

} // namespace

TEMPLATE_TEST_CASE("read_at: every method returns the records at the indices, in the caller's "
                   "order",
                   "[records]", std::int32_t, triple) {
    temp_dir dir;
    const fs::path path = dir / "records";
    const std::uint64_t count = 50000; // 200 or 600 KB: many pages
    const std::vector<TestType> records = make_records<TestType>(path, count, 3);
    for (unsigned seed : {1u, 2u}) {
        const std::vector<std::uint64_t> indices = random_indices(count, 3000, seed);
        std::vector<TestType> want(indices.size());
        for (std::size_t i = 0; i < indices.size(); ++i) {
            want[i] = records[indices[i]];
        }
        for (const record_options& o : every_method()) {
            CAPTURE(seed, describe(o));
            std::vector<TestType> got(indices.size());
            fastread::read_at<TestType>(path, indices, std::span<TestType>(got), o);
            CHECK(got == want);
        }
    }
}

TEST_CASE("read_at: the automatic method on cached and on evicted pages", "[records]") {
    temp_dir dir;
    const fs::path path = dir / "records";
    const std::vector<std::int32_t> records = make_records<std::int32_t>(path, 300000);
    const std::vector<std::uint64_t> indices = random_indices(records.size(), 20000, 3);
    std::vector<std::int32_t> want(indices.size());
    for (std::size_t i = 0; i < indices.size(); ++i) {
        want[i] = records[indices[i]];
    }
    for (bool evict : {false, true, false}) {
        CAPTURE(evict);
        if (evict) {
            if (!fastread_test::residency_known) {
                continue; // no page cache to drop the file from (Windows)
            }
            fastread::page_cache::evict(path);
        } else {
            fastread::page_cache::preload(path);
        }
        std::vector<std::int32_t> got(indices.size());
        fastread::read_at<std::int32_t>(path, indices, std::span<std::int32_t>(got));
        CHECK(got == want);
    }
}

TEST_CASE("read_at automatic on a big cached file: the records, whatever the thread count",
          "[records]") {
    temp_dir dir;
    const fs::path path = dir / "records";
    const std::uint64_t count = std::uint64_t{10} << 20;
    const std::vector<std::int32_t> records = make_records<std::int32_t>(path, count);
    fastread::page_cache::preload(path);
    for (unsigned seed : {1u, 2u}) {
        const std::vector<std::uint64_t> indices = random_indices(count, 200000, seed);
        std::vector<std::int32_t> want(indices.size());
        for (std::size_t i = 0; i < indices.size(); ++i) {
            want[i] = records[indices[i]];
        }
        for (unsigned threads : {0u, 1u, 2u, 5u}) {
            CAPTURE(seed, threads);
            record_options o;
            o.threads = threads;
            std::vector<std::int32_t> got(indices.size());
            fastread::read_at<std::int32_t>(path, indices, std::span<std::int32_t>(got), o);
            CHECK(got == want);
        }
    }
}

TEMPLATE_TEST_CASE("update_at: every method leaves the file as updates applied one by one",
                   "[records]", std::int32_t, triple) {
    temp_dir dir;
    const fs::path path = dir / "records";
    const std::uint64_t count = 40000;
    for (const record_options& o : every_method()) {
        for (bool durable : {false, true}) {
            CAPTURE(describe(o), durable);
            std::vector<TestType> want = make_records<TestType>(path, count, 5);
            const std::vector<std::uint64_t> indices = random_indices(count, 2500, 4);
            for (std::uint64_t i : indices) {
                want[i] = step(want[i]); // a repeated index is updated each time
            }
            record_options with = o;
            with.durable = durable;
            fastread::update_at<TestType>(
                path, indices, [](TestType v) { return step(v); }, with);
            std::string expected(reinterpret_cast<const char*>(want.data()),
                                 want.size() * sizeof(TestType));
            expected.append(5, '\x7f');
            CHECK(read_file(path) == expected);
        }
    }
}

TEST_CASE("update_at automatic on a big cached file: as applied one by one, whatever the "
          "thread count",
          "[records]") {
    temp_dir dir;
    const fs::path path = dir / "records";
    const std::uint64_t count = std::uint64_t{10} << 20;
    for (unsigned threads : {0u, 1u, 3u}) {
        CAPTURE(threads);
        std::vector<std::int32_t> want = make_records<std::int32_t>(path, count);
        fastread::page_cache::preload(path);
        const std::vector<std::uint64_t> indices = random_indices(count, 200000, 6);
        for (std::uint64_t i : indices) {
            want[i] = step(want[i]);
        }
        record_options o;
        o.threads = threads;
        fastread::update_at<std::int32_t>(
            path, indices, [](std::int32_t v) { return step(v); }, o);
        CHECK(read_file(path) == std::string(reinterpret_cast<const char*>(want.data()),
                                             want.size() * sizeof(std::int32_t)));
    }
}

std::int32_t plus_seven(std::int32_t v) {
    return v + 7;
}

TEST_CASE("update_at: fn may be a function, a function pointer, or a const, mutable or "
          "temporary function object",
          "[records]") {
    temp_dir dir;
    const fs::path path = dir / "records";
    const std::vector<std::uint64_t> indices{3, 9, 3, 0, 11};
    // Record i holds record_for(i); each call adds 7 to the records at the indices.
    auto check = [&](auto&& update, int calls) {
        std::vector<std::int32_t> want = make_records<std::int32_t>(path, 12);
        for (int c = 0; c < calls; ++c) {
            for (std::uint64_t i : indices) {
                want[i] += 7;
            }
        }
        for (int c = 0; c < calls; ++c) {
            update();
        }
        CHECK(read_file(path) == std::string(reinterpret_cast<const char*>(want.data()),
                                             want.size() * sizeof(std::int32_t)));
    };
    check([&] { fastread::update_at<std::int32_t>(path, indices, plus_seven); }, 1);
    std::int32_t (*pointer)(std::int32_t) = &plus_seven;
    check([&] { fastread::update_at<std::int32_t>(path, indices, pointer); }, 2);
    const auto constant = [](std::int32_t v) { return v + 7; };
    check([&] { fastread::update_at<std::int32_t>(path, indices, constant); }, 1);
    auto mutable_object = [calls = 0](std::int32_t v) mutable { // called as non-const
        ++calls;
        return v + 7;
    };
    check([&] { fastread::update_at<std::int32_t>(path, indices, mutable_object); }, 1);
    int seen = 0;
    check(
        [&] {
            fastread::update_at<std::int32_t>(path, indices, [&seen](std::int32_t v) {
                ++seen;
                return v + 7;
            });
        },
        1);
    CHECK(seen == static_cast<int>(indices.size()));
}

TEST_CASE("read_at deduces the record type from the output range, or returns the records",
          "[records]") {
    temp_dir dir;
    const fs::path path = dir / "records";
    const std::vector<triple> all = make_records<triple>(path, 40);
    const std::vector<std::uint64_t> idx{39, 0, 7, 7, 21};
    std::vector<triple> want;
    for (std::uint64_t i : idx) {
        want.push_back(all[i]);
    }
    std::vector<triple> into_vector(idx.size());
    fastread::read_at(path, idx, into_vector);
    CHECK(into_vector == want);
    std::array<triple, 5> into_array{};
    fastread::read_at(path, idx, into_array);
    CHECK(std::vector<triple>(into_array.begin(), into_array.end()) == want);
    triple into_c_array[5] = {};
    fastread::read_at(path, idx, into_c_array);
    CHECK(std::vector<triple>(std::begin(into_c_array), std::end(into_c_array)) == want);
    std::vector<triple> backing(idx.size());
    fastread::read_at(path, idx, std::span<triple>(backing)); // a span, T still deduced
    CHECK(backing == want);
    CHECK(fastread::read_at<triple>(path, idx) == want);
    CHECK(fastread::read_at<triple>(path, {}).empty());
    record_options one_thread;
    one_thread.threads = 1;
    CHECK(fastread::read_at<triple>(path, idx, one_thread) == want);
    // The record size comes from the type: the same bytes as 4-byte records.
    const std::vector<std::int32_t> words = fastread::read_at<std::int32_t>(path, {{3, 4}});
    CHECK(words == std::vector<std::int32_t>{all[1].a, all[1].b});
    // positioned_file has the same forms.
    fastread::positioned_file file(path);
    std::vector<triple> again(idx.size());
    file.read_at(idx, again);
    CHECK(again == want);
    CHECK(file.read_at<triple>(idx) == want);
    // A wrong length still throws before anything is read.
    std::vector<triple> short_out(2);
    CHECK_THROWS_AS(fastread::read_at(path, idx, short_out), std::invalid_argument);
    CHECK_THROWS_AS(fastread::read_at<triple>(path, {{40}}), std::out_of_range);
    CHECK_FALSE(fastread::try_read_at(path, idx, short_out));
    std::vector<triple> by_range(idx.size());
    REQUIRE(fastread::try_read_at(path, idx, by_range));
    CHECK(by_range == want);
}

TEST_CASE("update_at deduces the record type from fn's parameter", "[records]") {
    temp_dir dir;
    const fs::path path = dir / "records";
    std::vector<std::int32_t> want = make_records<std::int32_t>(path, 12);
    const std::vector<std::uint64_t> idx{3, 9, 3};
    for (std::uint64_t i : idx) {
        want[i] = step(want[i]);
    }
    fastread::update_at(path, idx, [](std::int32_t v) { return step(v); });
    CHECK(fastread::read_at<std::int32_t>(path, {{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}}) == want);
    // By const reference, and a function: triples of 12 bytes.
    const fs::path triples = dir / "triples";
    std::vector<triple> t = make_records<triple>(triples, 5);
    fastread::update_at(triples, {{4, 0}}, [](const triple& r) { return triple{r.c, r.b, r.a}; });
    std::swap(t[4].a, t[4].c);
    std::swap(t[0].a, t[0].c);
    fastread::positioned_file file(triples, true);
    file.update_at(
        std::vector<std::uint64_t>{1}, +[](triple r) noexcept {
            r.b = 0;
            return r;
        });
    t[1].b = 0;
    CHECK(file.read_at<triple>(std::vector<std::uint64_t>{0, 1, 2, 3, 4}) == t);
}

TEST_CASE("update_at: records left unchanged are not written", "[records]") {
    // The file's modification time is set a day back: any write would move it to now.
    temp_dir dir;
    const fs::path path = dir / "records";
    make_records<std::int32_t>(path, 10000);
    const std::string before = read_file(path);
    const auto day_ago = fs::last_write_time(path) - std::chrono::hours(24);
    for (access_method m : {access_method::pread, access_method::mmap, access_method::automatic}) {
        CAPTURE(fastread::to_string(m));
        fs::last_write_time(path, day_ago);
        const std::vector<std::uint64_t> indices = random_indices(10000, 500, 5);
        record_options o;
        o.method = m;
        std::size_t calls = 0;
        fastread::update_at<std::int32_t>(
            path, indices,
            [&](std::int32_t v) {
                ++calls;
                return v;
            },
            o);
        CHECK(calls == indices.size());
        CHECK(read_file(path) == before);
        CHECK(fs::last_write_time(path) == day_ago);
    }
}

TEST_CASE("read_at and update_at: indices out of range, a partial last record, wrong lengths",
          "[records]") {
    temp_dir dir;
    const fs::path path = dir / "records";
    make_records<std::int32_t>(path, 100, 3); // 403 bytes: 100 whole records
    const std::string before = read_file(path);
    std::vector<std::int32_t> out(2);
    const std::vector<std::uint64_t> last_whole{0, 99};
    fastread::read_at<std::int32_t>(path, last_whole, std::span<std::int32_t>(out));
    CHECK(out ==
          std::vector<std::int32_t>{record_for<std::int32_t>(0), record_for<std::int32_t>(99)});
    for (access_method m : {access_method::automatic, access_method::pread, access_method::mmap}) {
        CAPTURE(fastread::to_string(m));
        record_options o;
        o.method = m;
        const std::vector<std::uint64_t> partial{5, 100}; // 100: the 3-byte tail
        CHECK_THROWS_AS(
            fastread::read_at<std::int32_t>(path, partial, std::span<std::int32_t>(out), o),
            std::out_of_range);
        const std::vector<std::uint64_t> way_past{1, UINT64_MAX};
        CHECK_THROWS_AS(fastread::update_at<std::int32_t>(
                            path, way_past, [](std::int32_t v) { return v + 1; }, o),
                        std::out_of_range);
        CHECK(read_file(path) == before); // nothing written, not even index 1
    }
    try {
        const std::vector<std::uint64_t> partial{100};
        std::vector<std::int32_t> one(1);
        fastread::read_at<std::int32_t>(path, partial, std::span<std::int32_t>(one));
        FAIL("no exception");
    } catch (const std::out_of_range& e) {
        CHECK(std::string(e.what()) ==
              path.string() + ": record index 100 (at position 0 of the batch) is out of range: "
                              "the file holds 100 whole records");
        // The try_ form: the same report as a value, nothing read.
        const std::vector<std::uint64_t> partial{100};
        std::vector<std::int32_t> one(1);
        const fastread::result<void> r =
            fastread::try_read_at<std::int32_t>(path, partial, std::span<std::int32_t>(one));
        REQUIRE_FALSE(r);
        CHECK(r.error().code() == fastread::errc::out_of_range);
        CHECK(r.error().message() == e.what());
        CHECK(r.error().path() == path.string());
        CHECK_FALSE(r.error().offset());
    }
    for (access_method m : {access_method::automatic, access_method::pread, access_method::mmap}) {
        CAPTURE(fastread::to_string(m));
        record_options o;
        o.method = m;
        const std::vector<std::uint64_t> two{99, 0};
        const fastread::result<std::vector<std::int32_t>> got =
            fastread::try_read_at<std::int32_t>(path, two, o);
        REQUIRE(got);
        CHECK(*got ==
              std::vector<std::int32_t>{record_for<std::int32_t>(99), record_for<std::int32_t>(0)});
    }
    const std::vector<std::uint64_t> three{1, 2, 3};
    CHECK_THROWS_AS(fastread::read_at<std::int32_t>(path, three, std::span<std::int32_t>(out)),
                    std::invalid_argument);
    // An empty file has no records; an empty batch reads nothing.
    write_file(dir / "empty", "");
    const std::vector<std::uint64_t> zero{0};
    std::vector<std::int32_t> one(1);
    CHECK_THROWS_AS(
        fastread::read_at<std::int32_t>(dir / "empty", zero, std::span<std::int32_t>(one)),
        std::out_of_range);
    fastread::read_at<std::int32_t>(dir / "empty", {}, std::span<std::int32_t>());
    // A missing file.
    CHECK_THROWS_AS(
        fastread::read_at<std::int32_t>(dir / "missing", zero, std::span<std::int32_t>(one)),
        std::system_error);
    const fastread::result<void> missing =
        fastread::try_read_at<std::int32_t>(dir / "missing", zero, std::span<std::int32_t>(one));
    REQUIRE_FALSE(missing);
    CHECK(missing.error().code() == std::errc::no_such_file_or_directory);
    const fastread::result<void> lengths =
        fastread::try_read_at<std::int32_t>(path, three, std::span<std::int32_t>(out));
    REQUIRE_FALSE(lengths);
    CHECK(lengths.error().code() == fastread::errc::invalid_argument);
    CHECK(lengths.error().message() == "read_at: indices (3) and out (2) differ in length");
}

#if !defined(_WIN32) // as_unprivileged forks
TEST_CASE("update_at: a file that cannot be written throws update_error with 0 applied",
          "[records]") {
    temp_dir dir;
    fs::permissions(dir.path(), fs::perms::all); // the unprivileged child must get in
    const fs::path path = dir / "records";
    make_records<std::int32_t>(path, 1000);
    const std::string before = read_file(path);
    fs::permissions(path, fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);
    const int status = fastread_test::as_unprivileged([&] {
        const std::vector<std::uint64_t> indices{1, 2, 3};
        int failures = 0;
        for (access_method m :
             {access_method::automatic, access_method::pread, access_method::mmap}) {
            record_options o;
            o.method = m;
            try {
                fastread::update_at<std::int32_t>(
                    path, indices, [](std::int32_t v) { return v + 1; }, o);
                ++failures;
            } catch (const fastread::update_error& e) {
                failures += e.applied() != 0 || e.code() != std::errc::permission_denied;
            }
        }
        return failures;
    });
    CHECK(status == 0);
    CHECK(read_file(path) == before);
    // A positioned_file opened for reading refuses updates the same way.
    fastread::positioned_file file(path);
    const std::vector<std::uint64_t> one{0};
    CHECK_THROWS_AS(file.update_at<std::int32_t>(one, [](std::int32_t v) { return v; }),
                    fastread::update_error);
    // The try_ form: the same error as a value, nothing applied.
    std::size_t applied = 99;
    const fastread::result<void> r = file.try_update_at<std::int32_t>(
        one, [](std::int32_t v) { return v; }, {}, &applied);
    REQUIRE_FALSE(r);
    CHECK(r.error().code() == std::errc::bad_file_descriptor);
    CHECK(r.error().message() == "update_at: " + path.string() + " was opened read-only: " +
                                     std::generic_category().message(EBADF));
    CHECK(applied == 0);
    const fastread::result<void> missing = fastread::try_update_at<std::int32_t>(
        dir / "missing", one, [](std::int32_t v) { return v; }, {}, &applied);
    REQUIRE_FALSE(missing);
    CHECK(missing.error().code() == std::errc::no_such_file_or_directory);
    CHECK(applied == 0);
}
#endif

TEST_CASE("positioned_file: batches see the updates of earlier batches", "[records]") {
    temp_dir dir;
    const fs::path path = dir / "records";
    std::vector<std::int32_t> want = make_records<std::int32_t>(path, 5000, 2);
    fastread::positioned_file file(path, true);
    CHECK(file.record_count(sizeof(std::int32_t)) == 5000);
    CHECK(file.record_count(3) == 6667); // 20,002 bytes: the partial record is not counted
    CHECK_THROWS_AS(file.record_count(0), std::invalid_argument);
    for (unsigned round = 0; round < 3; ++round) {
        const std::vector<std::uint64_t> indices = random_indices(5000, 300, 10 + round);
        record_options o;
        o.method = round == 1 ? access_method::mmap : access_method::pread;
        file.update_at<std::int32_t>(
            indices, [](std::int32_t v) { return v - 3; }, o);
        for (std::uint64_t i : indices) {
            want[i] -= 3;
        }
        std::vector<std::int32_t> got(want.size());
        std::vector<std::uint64_t> all(want.size());
        for (std::size_t i = 0; i < all.size(); ++i) {
            all[i] = i;
        }
        file.read_at<std::int32_t>(all, std::span<std::int32_t>(got));
        CHECK(got == want);
    }
}

TEST_CASE("io_uring: the same records when available, else ENOSYS", "[records]") {
    temp_dir dir;
    const fs::path path = dir / "records";
    const std::vector<std::int32_t> records = make_records<std::int32_t>(path, 100000);
    const std::vector<std::uint64_t> indices = random_indices(records.size(), 5000, 6);
    record_options o;
    o.method = access_method::io_uring;
    std::vector<std::int32_t> got(indices.size());
    if (!fastread::detail::uring_usable()) {
        try {
            fastread::read_at<std::int32_t>(path, indices, std::span<std::int32_t>(got), o);
            FAIL("no exception");
        } catch (const std::system_error& e) {
            CHECK(e.code() == std::errc::function_not_supported);
            const fastread::result<void> r =
                fastread::try_read_at<std::int32_t>(path, indices, std::span<std::int32_t>(got), o);
            REQUIRE_FALSE(r);
            CHECK(r.error().code() == e.code());
            CHECK(r.error().message() == e.what());
        }
        return;
    }
    fastread::page_cache::evict(path); // cold: many reads in flight
    fastread::read_at<std::int32_t>(path, indices, std::span<std::int32_t>(got), o);
    for (std::size_t i = 0; i < indices.size(); ++i) {
        REQUIRE(got[i] == records[indices[i]]);
    }
}

TEST_CASE("baseline: the article's fseek programs, every dial", "[records]") {
    temp_dir dir;
    const fs::path path = dir / "records";
    const std::uint64_t count = 20000;
    for (bool sorted : {true, false}) {
        for (bool buffered : {true, false}) {
            for (baseline::whence w :
                 {baseline::whence::set, baseline::whence::cur, baseline::whence::set_then_cur}) {
                for (bool rw : {false, true}) {
                    CAPTURE(sorted, buffered, static_cast<int>(w), rw);
                    std::vector<std::int32_t> records = make_records<std::int32_t>(path, count);
                    const std::vector<std::uint64_t> indices = random_indices(count, 700, 7);
                    baseline::fseek_options o{sorted, buffered, w, rw};
                    std::vector<std::int32_t> got(indices.size());
                    baseline::fseek_read<std::int32_t>(path, indices, std::span<std::int32_t>(got),
                                                       o);
                    bool same = true;
                    for (std::size_t i = 0; i < indices.size(); ++i) {
                        same = same && got[i] == records[indices[i]];
                    }
                    CHECK(same);
                    baseline::fseek_update<std::int32_t>(
                        path, indices, [](std::int32_t v) { return v + 1; }, o);
                    for (std::uint64_t i : indices) {
                        ++records[i];
                    }
                    CHECK(read_file(path) ==
                          std::string(reinterpret_cast<const char*>(records.data()),
                                      records.size() * sizeof(std::int32_t)));
                }
            }
        }
    }
}

// POSIX only: a loop-mounted full file system, and truncate(2) racing a batch (Windows
// refuses to shrink a mapped file).
#if !defined(_WIN32)
namespace {

// A small file system mounted on a fresh directory for the test (root only): ext4 in a
// loop-mounted image of `megabytes`, or tmpfs with size=; `mounted()` false when that
// cannot be done here. Unmounted on destruction.
class small_file_system {
  public:
    small_file_system(const std::string& type, unsigned megabytes) {
        if (::geteuid() != 0) {
            return;
        }
        const std::string dir = (dir_.path() / "mnt").string();
        const std::string image = (dir_.path() / "fs.img").string();
        fs::create_directory(dir);
        std::string command;
        if (type == "ext4") {
            command = "truncate -s " + std::to_string(megabytes) + "M '" + image +
                      "' && mkfs.ext4 -q -F '" + image + "' >/dev/null 2>&1 && mount -o loop '" +
                      image + "' '" + dir + "' 2>/dev/null";
        } else {
            command = "mount -t tmpfs -o size=" + std::to_string(megabytes) + "m tmpfs '" + dir +
                      "' 2>/dev/null";
        }
        mounted_ = std::system(command.c_str()) == 0;
        if (mounted_) {
            path_ = dir;
        }
    }
    ~small_file_system() {
        if (mounted_) {
            (void)std::system(("umount -l '" + path_.string() + "'").c_str());
        }
    }
    small_file_system(const small_file_system&) = delete;
    small_file_system& operator=(const small_file_system&) = delete;
    bool mounted() const { return mounted_; }
    const fs::path& path() const { return path_; }

  private:
    temp_dir dir_;
    fs::path path_;
    bool mounted_ = false;
};

std::uint64_t count_nonzero(const fs::path& path) {
    const std::string bytes = read_file(path);
    std::uint64_t n = 0;
    for (std::size_t at = 0; at + 4 <= bytes.size(); at += 4) {
        std::int32_t v;
        std::memcpy(&v, bytes.data() + at, 4);
        n += v != 0;
    }
    return n;
}

} // namespace

TEST_CASE("update_at automatic: a full file system gives update_error with what was applied",
          "[records][error]") {
    // A sparse file far bigger than the file system, one record per page to update: the
    // blocks run out part way. Automatic never stores through a map (a store into a hole of
    // a full file system raises SIGBUS there): it throws update_error (ENOSPC).
    const std::uint64_t records = std::uint64_t{64} << 18; // 64 MiB of int32
    std::vector<std::uint64_t> indices;
    for (std::uint64_t i = 0; i < 5000; ++i) {
        indices.push_back(i * 1024 + 7); // 5000 pages, 20 MiB
    }
    for (const std::string type : {"ext4", "tmpfs"}) {
        CAPTURE(type);
        small_file_system small(type, 12);
        if (!small.mounted()) {
            WARN("skipped: cannot mount a small " << type << " here (needs root and mount)");
            continue;
        }
        const fs::path path = small.path() / "sparse.bin";
        {
            const int fd = ::open(path.c_str(), O_CREAT | O_RDWR | O_CLOEXEC, 0644);
            REQUIRE(fd >= 0);
            REQUIRE(::ftruncate(fd, static_cast<off_t>(records * 4)) == 0);
            ::close(fd);
        }
        // ext4: reading the holes puts zero pages in the page cache, so automatic takes its
        // cached path (pread, runs written with pwrite); tmpfs keeps holes out of the cache,
        // so the cold path (io_uring or pread) runs.
        fastread::page_cache::preload(path);
        try {
            fastread::update_at<std::int32_t>(path, indices, [](std::int32_t v) { return v + 1; });
            FAIL("20 MiB of updates fitted in a 12 MiB file system");
        } catch (const fastread::update_error& e) {
            CHECK(e.code() == std::errc::no_space_on_device);
            CHECK_THAT(e.what(), Catch::Contains(path.string()));
            const std::string what = e.what(), text = e.code().message();
            CHECK(what.find(text) == what.rfind(text)); // the errno text once
            CHECK(e.applied() < indices.size());
            const std::uint64_t written = count_nonzero(path);
            CHECK(written >= e.applied());
            if (type == "ext4") {
                // The cached path applies the batch in file order: exactly the first
                // applied() records are in the file.
                CHECK(written == e.applied());
                std::vector<std::int32_t> got(indices.size());
                fastread::read_at<std::int32_t>(path, indices, std::span<std::int32_t>(got));
                for (std::size_t k = 0; k < got.size(); ++k) {
                    if (got[k] != (k < e.applied() ? 1 : 0)) {
                        FAIL_CHECK("record " << indices[k] << " is " << got[k]);
                        break;
                    }
                }
            }
            // The try_ form on the same file, emptied again: the same code, and what was
            // applied through the out-parameter.
            const std::string message = e.what();
            {
                const int fd = ::open(path.c_str(), O_TRUNC | O_RDWR | O_CLOEXEC, 0644);
                REQUIRE(fd >= 0);
                REQUIRE(::ftruncate(fd, static_cast<off_t>(records * 4)) == 0);
                ::close(fd);
            }
            fastread::page_cache::preload(path);
            std::size_t applied = 0;
            const fastread::result<void> r = fastread::try_update_at<std::int32_t>(
                path, indices, [](std::int32_t v) { return v + 1; }, {}, &applied);
            REQUIRE_FALSE(r);
            CHECK(r.error().code() == std::errc::no_space_on_device);
            CHECK_THAT(r.error().message(), Catch::Contains(path.string()));
            CHECK(applied < indices.size());
            CHECK(count_nonzero(path) >= applied);
            if (type == "ext4") {
                CHECK(count_nonzero(path) == applied);
            }
        }
    }
}

namespace {

// Rounds of `call` (given the round's records) racing a thread that truncates `path` to
// 4096 bytes, until the cut landed inside a call (at least `least` rounds, at most `most`:
// how long a truncate takes on ext4 is not the test's to choose). `prepare` writes the
// file and returns its records. The cutter runs before the call starts in round 0 (so the
// race is hit however fast the call is), then `step` x (round % least) later. A call that
// returns checks its own results; one that throws must throw std::out_of_range (cut before
// the batch was checked) or a std::system_error naming the file. Returns the rounds hit.
template <class Prepare, class Call>
int truncation_rounds(const fs::path& path, int least, int most, std::chrono::microseconds step,
                      Prepare prepare, Call call) {
    int hit = 0;
    for (int round = 0; round < most && (round < least || hit == 0); ++round) {
        const std::vector<std::int32_t> records = prepare();
        std::atomic<bool> ready{false}, go{false};
        std::thread cutter([&, round] {
            ready = true;
            while (!go.load()) {
            }
            if (round % least > 0) {
                std::this_thread::sleep_for(step * (round % least));
            }
            (void)::truncate(path.c_str(), 4096); // no Catch2 assertion off the main thread
        });
        while (!ready.load()) {
        }
        go = true;
        try {
            call(records);
        } catch (const std::out_of_range&) {
            ++hit;
        } catch (const std::system_error& e) {
            CHECK_THAT(e.what(), Catch::Contains(path.string()));
            ++hit;
        }
        cutter.join();
    }
    return hit;
}

// read_at<int32_t> of `indices`, checked against `records` when it returns.
void read_and_check(const fs::path& path, const std::vector<std::uint64_t>& indices,
                    const std::vector<std::int32_t>& records, const record_options& o = {}) {
    std::vector<std::int32_t> got(indices.size());
    fastread::read_at<std::int32_t>(path, indices, std::span<std::int32_t>(got), o);
    bool same = true;
    for (std::size_t k = 0; k < indices.size() && same; ++k) {
        same = got[k] == records[indices[k]];
    }
    CHECK(same);
}

std::vector<std::uint64_t> spread_indices(std::uint64_t n, std::uint64_t count) {
    std::vector<std::uint64_t> indices;
    for (std::uint64_t i = 0; i < n; ++i) {
        indices.push_back((i * 2654435761u) % count);
    }
    return indices;
}

} // namespace

TEST_CASE("read_at: a file truncated during a batch gives an error naming it, never SIGBUS",
          "[records][error]") {
    temp_dir dir;
    const fs::path path = dir / "records";
    const std::uint64_t count = std::uint64_t{8} << 18; // 8 MiB
    const std::vector<std::uint64_t> indices = spread_indices(200000, count);
    for (fastread::io_mode io : {fastread::io_mode::read, fastread::io_mode::map}) {
        CAPTURE(fastread::to_string(io));
        record_options o;
        o.io = io;
        const int hit = truncation_rounds(
            path, 6, 40, std::chrono::microseconds(300),
            [&] {
                std::vector<std::int32_t> records = make_records<std::int32_t>(path, count);
                fastread_test::sync_file(path);
                return records;
            },
            [&](const std::vector<std::int32_t>& records) {
                read_and_check(path, indices, records, o);
            });
        CHECK(hit > 0);
    }
}

TEST_CASE("read_at automatic, big cached file: truncated during a batch, an error naming it",
          "[records][error]") {
    // Joined preads on several threads (40 MiB, cached).
    temp_dir dir;
    const fs::path path = dir / "records";
    const std::uint64_t count = std::uint64_t{10} << 20;
    const std::vector<std::uint64_t> indices = spread_indices(400000, count);
    const int hit = truncation_rounds(
        path, 4, 12, std::chrono::microseconds(500),
        [&] {
            std::vector<std::int32_t> records = make_records<std::int32_t>(path, count);
            fastread::page_cache::preload(path);
            return records;
        },
        [&](const std::vector<std::int32_t>& records) { read_and_check(path, indices, records); });
    CHECK(hit > 0);
}

TEST_CASE("update_at automatic, big cached file: truncated during a batch, an error naming "
          "it",
          "[records][error]") {
    // Joined preads and runs written back with pwrite on several threads: a cut during the
    // batch gives an error, never SIGBUS.
    temp_dir dir;
    const fs::path path = dir / "records";
    const std::uint64_t count = std::uint64_t{10} << 20;
    const std::vector<std::uint64_t> indices = spread_indices(400000, count);
    const int hit = truncation_rounds(
        path, 4, 12, std::chrono::microseconds(2000),
        [&] {
            std::vector<std::int32_t> records = make_records<std::int32_t>(path, count);
            fastread_test::sync_file(path);
            fastread::page_cache::preload(path);
            return records;
        },
        [&](const std::vector<std::int32_t>&) {
            fastread::update_at<std::int32_t>(path, indices, [](std::int32_t v) { return v + 1; });
        });
    CHECK(hit > 0);
}

#endif

TEST_CASE("update_error says the operation, the file and the errno text once", "[records][error]") {
    const std::string enoent = std::generic_category().message(ENOENT);
    // A cause as every fastread call reports it, wrapped.
    const std::system_error cause(ENOSPC, std::generic_category(), "pwrite \"/x/y.bin\"");
    const fastread::update_error wrapped(cause, 3);
    CHECK(std::string(wrapped.what()) ==
          "pwrite \"/x/y.bin\": " + std::generic_category().message(ENOSPC));
    CHECK(wrapped.code() == cause.code());
    CHECK(wrapped.applied() == 3);
    // Through an entry point: a file that cannot be opened for the update.
    temp_dir dir;
    const std::vector<std::uint64_t> indices = {0};
    try {
        fastread::records::baseline::fseek_update<std::int32_t>(dir / "missing.bin", indices,
                                                                [](std::int32_t v) { return v; });
        FAIL("updated a missing file");
    } catch (const fastread::update_error& e) {
        const std::string what = e.what();
        CHECK_THAT(what, Catch::Contains((dir / "missing.bin").string()));
        CHECK(what.find(enoent) != std::string::npos);
        CHECK(what.find(enoent) == what.rfind(enoent));
        CHECK(e.applied() == 0);
    }
}

#if !defined(_WIN32) // FIFOs
TEST_CASE("read_at and update_at refuse what is not a regular file, and never wait on a FIFO",
          "[records][error]") {
    temp_dir dir;
    REQUIRE(::mkfifo((dir / "fifo").c_str(), 0600) == 0); // no writer: a blocking open hangs
    fs::create_directory(dir / "directory");
    const std::vector<std::uint64_t> indices = {0};
    std::vector<std::int32_t> out(1);
    for (const auto& [path, err] :
         {std::pair{dir / "fifo", EINVAL}, std::pair{dir / "directory", EISDIR}}) {
        CAPTURE(path);
        try {
            fastread::read_at<std::int32_t>(path, indices, std::span<std::int32_t>(out));
            FAIL("read records of " << path);
        } catch (const std::system_error& e) {
            CHECK(e.code().value() == err);
            CHECK_THAT(e.what(), Catch::Contains(path.string()) &&
                                     Catch::Contains("read records: not a regular file"));
        }
        try {
            fastread::update_at<std::int32_t>(path, indices, [](std::int32_t v) { return v; });
            FAIL("updated records of " << path);
        } catch (const std::system_error& e) {
            CHECK(e.code().value() == (err == EISDIR ? EISDIR : EINVAL));
            CHECK_THAT(e.what(), Catch::Contains(path.string()));
        }
    }
}
#endif

TEST_CASE("update_at: fn that throws leaves the file untouched or says what was applied",
          "[records][error]") {
    temp_dir dir;
    const fs::path path = dir / "records.bin";
    // Records 1 MiB apart: one request each, whatever the gaps requests are joined across.
    const std::uint64_t apart = std::uint64_t{1} << 18, count = 5 * apart;
    const std::vector<std::uint64_t> indices = {4 * apart, 0, 3 * apart, apart, 2 * apart};
    int calls = 0;
    auto throws_on_fourth = [&](std::int32_t v) {
        if (++calls == 4) {
            throw std::runtime_error("fn failed");
        }
        return v + 100;
    };
    auto records = [&] {
        std::vector<std::int32_t> got(5);
        fastread::read_at<std::int32_t>(
            path, std::vector<std::uint64_t>{0, apart, 2 * apart, 3 * apart, 4 * apart},
            std::span<std::int32_t>(got));
        return got;
    };
    // In the caller's order: the first three visits are in the file, then update_error.
    make_records<std::int32_t>(path, count);
    const std::vector<std::int32_t> before = records();
    record_options unsorted;
    unsorted.sort = false;
    unsorted.method = access_method::pread;
    try {
        fastread::update_at<std::int32_t>(path, indices, throws_on_fourth, unsorted);
        FAIL("no error");
    } catch (const fastread::update_error& e) {
        CHECK(e.applied() == 3);
        CHECK(e.code() == std::errc::operation_canceled);
        CHECK_THAT(e.what(), Catch::Contains(path.string()) &&
                                 Catch::Contains("record " + std::to_string(apart)));
        try {
            std::rethrow_if_nested(e);
            FAIL("fn's exception is not nested");
        } catch (const std::runtime_error& inner) {
            CHECK(std::string(inner.what()) == "fn failed");
        }
    }
    std::vector<std::int32_t> want = before;
    for (std::uint64_t i : {4, 0, 3}) {
        want[i] += 100;
    }
    CHECK(records() == want);
    // Sorted pread: fn runs for every record before any write, so the file is untouched.
    make_records<std::int32_t>(path, count);
    calls = 0;
    record_options sorted;
    sorted.method = access_method::pread;
    CHECK_THROWS_WITH(fastread::update_at<std::int32_t>(path, indices, throws_on_fourth, sorted),
                      "fn failed");
    CHECK(records() == before);
    // Automatic on cached pages: in file order (0, 1, 2, 3, 4 apart), a window's requests
    // before the one fn threw in go to the file, and nothing after.
    make_records<std::int32_t>(path, count);
    fastread::page_cache::preload(path);
    calls = 0;
    if (!fastread_test::residency_known) {
        // No page cache to ask (Windows): automatic takes the path of pages not cached,
        // sorted phases, so fn's error comes before any write.
        CHECK_THROWS_WITH(fastread::update_at<std::int32_t>(path, indices, throws_on_fourth),
                          "fn failed");
        CHECK(records() == before);
        return;
    }
    try {
        fastread::update_at<std::int32_t>(path, indices, throws_on_fourth);
        FAIL("no error");
    } catch (const fastread::update_error& e) {
        CHECK(e.applied() == 3);
        CHECK(e.code() == std::errc::operation_canceled);
        CHECK_THAT(e.what(), Catch::Contains(path.string()) &&
                                 Catch::Contains("record " + std::to_string(3 * apart)));
        try {
            std::rethrow_if_nested(e);
            FAIL("fn's exception is not nested");
        } catch (const std::runtime_error& inner) {
            CHECK(std::string(inner.what()) == "fn failed");
        }
    }
    want = before;
    for (std::uint64_t i : {0, 1, 2}) {
        want[i] += 100;
    }
    CHECK(records() == want);
    // io_uring: requests complete in any order; those written before fn threw (and those
    // in flight, which finish) are counted in applied(), and are exactly the changed ones.
    if (!fastread::detail::uring_usable()) {
        WARN("io_uring is not usable here: its case is not checked");
        return;
    }
    make_records<std::int32_t>(path, count);
    calls = 0;
    record_options uring;
    uring.method = access_method::io_uring;
    std::size_t applied = 99;
    try {
        fastread::update_at<std::int32_t>(path, indices, throws_on_fourth, uring);
        FAIL("no error");
    } catch (const fastread::update_error& e) {
        applied = e.applied();
        CHECK(e.code() == std::errc::operation_canceled);
        CHECK_THAT(e.what(), Catch::Contains(path.string()) && Catch::Contains("io_uring"));
        try {
            std::rethrow_if_nested(e);
            FAIL("fn's exception is not nested");
        } catch (const std::runtime_error& inner) {
            CHECK(std::string(inner.what()) == "fn failed");
        }
    }
    const std::vector<std::int32_t> after = records();
    std::size_t changed = 0;
    for (std::size_t i = 0; i < 5; ++i) {
        CHECK((after[i] == before[i] || after[i] == before[i] + 100));
        changed += after[i] != before[i];
    }
    CHECK(changed == applied);
    CHECK(applied <= 3); // fn ran for three records before it threw
}

#if !defined(_WIN32) // without_threads forks
TEST_CASE("read_at and update_at where no thread can be created: the same records", "[records]") {
    // 300 000 records and 40 000 indices: cached batches this big run on several threads;
    // without threads their slices run on the calling thread.
    temp_dir dir;
    const fs::path path = dir / "records";
    const std::vector<std::int32_t> records = make_records<std::int32_t>(path, 300000);
    const std::vector<std::uint64_t> indices = random_indices(records.size(), 40000, 11);
    fastread::positioned_file file(path, true); // opened here: the child may not open it
    const int status = fastread_test::without_threads([&] {
        int failures = 0;
        for (access_method m :
             {access_method::automatic, access_method::pread, access_method::mmap}) {
            record_options o;
            o.method = m;
            std::vector<std::int32_t> out(indices.size());
            file.read_at<std::int32_t>(indices, std::span<std::int32_t>(out), o);
            for (std::size_t i = 0; i < indices.size(); ++i) {
                failures += out[i] != records[indices[i]];
            }
        }
        record_options sorted;
        sorted.method = access_method::pread;
        file.update_at<std::int32_t>(
            indices, [](std::int32_t v) { return v + 1; }, sorted);
        return failures == 0 ? 0 : 1;
    });
    CHECK(status == 0);
    // The update ran in the child, on the file both share: each index once more per visit.
    std::vector<std::int32_t> want = records;
    for (std::uint64_t i : indices) {
        ++want[i];
    }
    std::vector<std::int32_t> got(records.size());
    std::vector<std::uint64_t> all(records.size());
    for (std::size_t i = 0; i < all.size(); ++i) {
        all[i] = i;
    }
    fastread::read_at<std::int32_t>(path, all, std::span<std::int32_t>(got));
    CHECK(got == want);
}
#endif
