#include "allocation_counter.hpp"

#include <cstdlib>
#include <new>

namespace {
thread_local bool watching = false;
thread_local std::size_t largest_seen = 0;

void* allocate(std::size_t n) {
    if (watching && n > largest_seen) {
        largest_seen = n;
    }
    if (void* p = std::malloc(n == 0 ? 1 : n)) {
        return p;
    }
    throw std::bad_alloc();
}
} // namespace

namespace fastread_test {
allocation_watch::allocation_watch() {
    largest_seen = 0;
    watching = true;
}
allocation_watch::~allocation_watch() {
    watching = false;
}
std::size_t allocation_watch::largest() const {
    return largest_seen;
}
} // namespace fastread_test

void* operator new(std::size_t n) {
    return allocate(n);
}
void* operator new[](std::size_t n) {
    return allocate(n);
}
void operator delete(void* p) noexcept {
    std::free(p);
}
void operator delete[](void* p) noexcept {
    std::free(p);
}
void operator delete(void* p, std::size_t) noexcept {
    std::free(p);
}
void operator delete[](void* p, std::size_t) noexcept {
    std::free(p);
}
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
    try {
        return allocate(n);
    } catch (...) {
        return nullptr;
    }
}
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept {
    try {
        return allocate(n);
    } catch (...) {
        return nullptr;
    }
}
void operator delete(void* p, const std::nothrow_t&) noexcept {
    std::free(p);
}
void operator delete[](void* p, const std::nothrow_t&) noexcept {
    std::free(p);
}
