#include <fastread/detail/parallel.hpp>
#include <fastread/duplicates/detail/thread_team.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <functional>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

#include "test_util.hpp"

using fastread::detail::growing_team;
using fastread::detail::in_slices;

TEST_CASE("in_slices: contiguous slices cover every index once, slice 0 on this thread",
          "[parallel]") {
    for (unsigned threads : {1u, 2u, 3u, 7u}) {
        for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{10}, std::size_t{1001}}) {
            CAPTURE(threads, n);
            std::vector<int> hits(n);
            std::thread::id first_slice;
            in_slices(n, threads, [&](unsigned t, std::size_t begin, std::size_t end) {
                if (t == 0) {
                    first_slice = std::this_thread::get_id();
                }
                for (std::size_t i = begin; i < end; ++i) {
                    ++hits[i]; // each index in one slice: no two threads touch it
                }
            });
            CHECK(std::all_of(hits.begin(), hits.end(), [](int h) { return h == 1; }));
            CHECK(first_slice == std::this_thread::get_id());
        }
    }
}

#if !defined(_WIN32) // without_threads forks
TEST_CASE("in_slices: where no thread can be created, every slice runs on this thread",
          "[parallel]") {
    const int status = fastread_test::without_threads([] {
        std::vector<int> hits(1001);
        const std::thread::id self = std::this_thread::get_id();
        bool elsewhere = false;
        in_slices(hits.size(), 4, [&](unsigned, std::size_t begin, std::size_t end) {
            elsewhere |= std::this_thread::get_id() != self;
            for (std::size_t i = begin; i < end; ++i) {
                ++hits[i];
            }
        });
        const bool each_once = std::all_of(hits.begin(), hits.end(), [](int h) { return h == 1; });
        return !elsewhere && each_once ? 0 : 1;
    });
    CHECK(status == 0);
}
#endif

TEST_CASE("growing_team: starts with some threads and adds the rest once on grow()", "[parallel]") {
    for (bool grow : {false, true}) {
        CAPTURE(grow);
        std::mutex m;
        std::vector<unsigned> ran;
        growing_team<std::function<void(unsigned)>>* team_ptr = nullptr;
        growing_team<std::function<void(unsigned)>> team(2, 5, [&](unsigned t) {
            if (grow && t == 1) {
                team_ptr->grow();
                team_ptr->grow(); // a second call adds nothing
            }
            const std::lock_guard<std::mutex> lock(m);
            ran.push_back(t);
        });
        team_ptr = &team;
        team.run();
        std::sort(ran.begin(), ran.end());
        CHECK(ran == (grow ? std::vector<unsigned>{0, 1, 2, 3, 4} : std::vector<unsigned>{0, 1}));
        CHECK(team.grown() == grow);
    }
}

TEST_CASE("growing_team: an exception is rethrown after every thread has finished", "[parallel]") {
    std::atomic<int> finished{0};
    growing_team<std::function<void(unsigned)>>* team_ptr = nullptr;
    growing_team<std::function<void(unsigned)>> team(2, 4, [&](unsigned t) {
        if (t == 0) {
            team_ptr->grow();
        }
        ++finished;
        if (t == 3) {
            throw std::runtime_error("thread 3");
        }
    });
    team_ptr = &team;
    CHECK_THROWS_WITH(team.run(), "thread 3");
    CHECK(finished == 4);
}

TEST_CASE("growing_team: grow_to adds threads up to a count, never past `most`", "[parallel]") {
    std::mutex m;
    std::vector<unsigned> ran;
    growing_team<std::function<void(unsigned)>>* team_ptr = nullptr;
    growing_team<std::function<void(unsigned)>> team(1, 4, [&](unsigned t) {
        if (t == 0) {
            team_ptr->grow_to(2); // thread 1
        } else if (t == 1) {
            team_ptr->grow_to(3); // thread 2, added by an added thread
            team_ptr->grow_to(2); // nothing: already 3
        } else if (t == 2) {
            team_ptr->grow_to(9); // thread 3: at most 4 in all
        }
        const std::lock_guard<std::mutex> lock(m);
        ran.push_back(t);
    });
    team_ptr = &team;
    team.run();
    std::sort(ran.begin(), ran.end());
    CHECK(ran == std::vector<unsigned>{0, 1, 2, 3});
    CHECK(team.grown());
}
