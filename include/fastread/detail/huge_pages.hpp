#ifndef FASTREAD_DETAIL_HUGE_PAGES_HPP
#define FASTREAD_DETAIL_HUGE_PAGES_HPP

// Advice for big output buffers: huge pages where the system gives them on request.

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace fastread::detail {

/// The smallest buffer advised to take huge pages: its aligned interior holds at least one.
inline constexpr std::size_t huge_page_advice_min_bytes = std::size_t{4} << 20;

/// Asks Linux to back the 2 MiB-aligned pages inside [p, p + n) with transparent huge
/// pages (madvise(2) MADV_HUGEPAGE, which the default "madvise" setting of
/// /sys/kernel/mm/transparent_hugepage/enabled waits for). For a buffer about to be
/// written once, whole (a column being filled): it then faults in 2 MiB at a time, not 4 KiB
/// (a page fault costs about 2 us on a virtual machine: 25 ms for 50 MB of 4 KiB pages).
/// The advice holds for that range only (nothing process-wide) and ends with its mapping;
/// at most one huge page more than written stays resident. Advice only: a failure, a
/// buffer under huge_page_advice_min_bytes or a system without it does nothing.
inline void advise_huge_pages(void* p, std::size_t n) noexcept {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    if (p == nullptr || n < huge_page_advice_min_bytes) {
        return;
    }
    constexpr std::uintptr_t huge = std::uintptr_t{2} << 20;
    const auto at = reinterpret_cast<std::uintptr_t>(p);
    const std::uintptr_t first = (at + huge - 1) & ~(huge - 1);
    const std::uintptr_t last = (at + n) & ~(huge - 1);
    if (last > first) {
        (void)::madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE);
    }
#else
    (void)p;
    (void)n;
#endif
}

/// Room for `n` elements in `v` (std::vector::reserve), a new buffer that is big advised to
/// take huge pages (it is about to be filled).
template <class T, class A>
void reserve_filled(std::vector<T, A>& v, std::size_t n) {
    if (n > v.capacity()) {
        v.reserve(n);
        if constexpr (!std::is_same_v<T, bool>) { // std::vector<bool> has no data()
            advise_huge_pages(v.data(), v.capacity() * sizeof(T));
        }
    }
}

} // namespace fastread::detail

#endif // FASTREAD_DETAIL_HUGE_PAGES_HPP
