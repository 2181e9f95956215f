#include <fastread/records/detail/record_plan.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

using fastread::detail::block_request;
using fastread::detail::block_rules;
using fastread::detail::plan_blocks;
using fastread::detail::record_ref;
using fastread::detail::visit_order;

TEST_CASE("visit_order: a stable sort by index, for short and long batches", "[records]") {
    for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{100}, std::size_t{5000}}) {
        for (std::uint64_t range : {std::uint64_t{50}, std::uint64_t{1} << 40, UINT64_MAX}) {
            CAPTURE(n, range);
            std::mt19937_64 rng(n + range);
            std::vector<std::uint64_t> indices(n);
            for (auto& i : indices) {
                i = range == UINT64_MAX ? rng() : rng() % range;
            }
            std::vector<record_ref> want(n);
            for (std::size_t i = 0; i < n; ++i) {
                want[i] = record_ref{indices[i], i};
            }
            std::stable_sort(
                want.begin(), want.end(),
                [](const record_ref& a, const record_ref& b) { return a.index < b.index; });
            const std::vector<record_ref> got = visit_order(indices, true);
            REQUIRE(got.size() == n);
            bool same = true;
            for (std::size_t i = 0; i < n; ++i) {
                same = same && got[i].index == want[i].index && got[i].pos == want[i].pos;
            }
            CHECK(same);
            const std::vector<record_ref> caller = visit_order(indices, false);
            bool in_order = true;
            for (std::size_t i = 0; i < n; ++i) {
                in_order = in_order && caller[i].pos == i && caller[i].index == indices[i];
            }
            CHECK(in_order);
        }
    }
}

namespace {
std::vector<record_ref> refs_of(std::vector<std::uint64_t> indices) {
    std::vector<record_ref> out;
    for (std::size_t i = 0; i < indices.size(); ++i) {
        out.push_back(record_ref{indices[i], i});
    }
    return out;
}
} // namespace

TEST_CASE("plan_blocks: pages, adjacent pages joined, limits, the end of the file", "[records]") {
    const block_rules rules{4096, 0, 16384};
    // 4-byte records: 0 and 1000 share page 0; 1024 is page 1 (adjacent: joined); 5000 is
    // page 4 (a gap: new request); 5001 joins it.
    CHECK(plan_blocks(refs_of({0, 1000, 1024, 5000, 5001}), 4, 1 << 20, rules) ==
          std::vector<block_request>{{0, 8192, 0, 3}, {16384, 4096, 3, 5}});
    // At most 16 KiB: pages 0..3 joined, page 4 starts another.
    CHECK(plan_blocks(refs_of({0, 1024, 2048, 3072, 4096}), 4, 1 << 20, rules) ==
          std::vector<block_request>{{0, 16384, 0, 4}, {16384, 4096, 4, 5}});
    // A 12-byte record at byte 4092 straddles pages 0 and 1; the file ends at 4200.
    CHECK(plan_blocks(refs_of({341}), 12, 4200, rules) ==
          std::vector<block_request>{{0, 4200, 0, 1}});
    // Unsorted: going back starts a new request; a repeat in place joins.
    CHECK(plan_blocks(refs_of({5000, 0, 0}), 4, 1 << 20, rules) ==
          std::vector<block_request>{{16384, 4096, 0, 1}, {0, 4096, 1, 3}});
    // A merge gap lets a request read over unneeded pages.
    CHECK(plan_blocks(refs_of({0, 3000}), 4, 1 << 20, block_rules{4096, 8192, 65536}) ==
          std::vector<block_request>{{0, 12288, 0, 2}});
    // A record longer than the limit gets a request of its own size.
    CHECK(plan_blocks(refs_of({0, 1}), 40000, 80000, rules) ==
          std::vector<block_request>{{0, 40960, 0, 1}, {36864, 43136, 1, 2}});
}
