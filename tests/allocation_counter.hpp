#ifndef FASTREAD_TESTS_ALLOCATION_COUNTER_HPP
#define FASTREAD_TESTS_ALLOCATION_COUNTER_HPP

// Replaces the global operator new for the test program so that a test can see the largest
// single allocation a call made on its thread.

#include <cstddef>

namespace fastread_test {

/// Records the largest allocation made on this thread while it lives.
class allocation_watch {
  public:
    allocation_watch();
    ~allocation_watch();
    allocation_watch(const allocation_watch&) = delete;
    allocation_watch& operator=(const allocation_watch&) = delete;
    /// Largest single allocation, in bytes, since construction.
    std::size_t largest() const;
};

} // namespace fastread_test

#endif
