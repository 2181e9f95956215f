#ifndef FASTREAD_TEST_BYTES_HPP
#define FASTREAD_TEST_BYTES_HPP

// Test helpers that need no operating system: deterministic bytes, the SIMD levels this CPU
// runs, a page the test may end its input at (the next one inaccessible), and making memory
// observable. They build for every system the tests run on (Windows included).

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#if defined(_WIN32)
#include <windows.h>
#else
#include <sys/mman.h>
#include <unistd.h>
#endif

#include <fastread/scan/simd_level.hpp>

namespace fastread_test {

/// Makes the memory at `p` observable, so that the compiler keeps the allocation and the
/// stores behind it (Clang may otherwise drop a new/delete pair whose memory no one reads).
inline void escape(const void* p) {
    asm volatile("" : : "g"(p) : "memory");
}

// Deterministic bytes: a different pattern per seed.
inline std::string bytes_of(std::size_t n, unsigned seed = 1) {
    std::string s(n, '\0');
    std::uint32_t x = seed * 2654435761u + 1;
    for (char& c : s) {
        x = x * 1664525u + 1013904223u;
        c = static_cast<char>(x >> 24);
    }
    return s;
}

/// Every SIMD level this CPU can run, lowest first.
inline std::vector<fastread::scan::simd_level> supported_levels() {
    std::vector<fastread::scan::simd_level> levels;
    for (fastread::scan::simd_level level : fastread::scan::all_levels) {
        if (level <= fastread::scan::best_level()) {
            levels.push_back(level);
        }
    }
    return levels;
}

/// Two pages of memory, the second inaccessible, so that a read past the end of the first
/// faults: `boundary()` is the first byte that may not be read (VirtualAlloc and
/// VirtualProtect on Windows, mmap and mprotect elsewhere). @throws std::runtime_error if
/// the pages cannot be set up.
class guarded_page {
  public:
    guarded_page() {
#if defined(_WIN32)
        SYSTEM_INFO info;
        GetSystemInfo(&info);
        page_ = info.dwPageSize;
        base_ = static_cast<char*>(
            VirtualAlloc(nullptr, 2 * page_, MEM_RESERVE | MEM_COMMIT, PAGE_READWRITE));
        DWORD old = 0;
        if (base_ == nullptr || !VirtualProtect(base_ + page_, page_, PAGE_NOACCESS, &old)) {
            throw std::runtime_error("guarded_page: VirtualAlloc/VirtualProtect failed");
        }
#else
        page_ = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
        void* map =
            ::mmap(nullptr, 2 * page_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (map == MAP_FAILED) {
            throw std::runtime_error("guarded_page: mmap failed");
        }
        base_ = static_cast<char*>(map);
        if (::mprotect(base_ + page_, page_, PROT_NONE) != 0) {
            ::munmap(map, 2 * page_);
            throw std::runtime_error("guarded_page: mprotect failed");
        }
#endif
    }
    guarded_page(const guarded_page&) = delete;
    guarded_page& operator=(const guarded_page&) = delete;
    ~guarded_page() {
#if defined(_WIN32)
        VirtualFree(base_, 0, MEM_RELEASE);
#else
        ::munmap(base_, 2 * page_);
#endif
    }
    /// The first inaccessible byte; the page before it may be written and read.
    char* boundary() const noexcept {
        return base_ + page_;
    }
    std::size_t page() const noexcept {
        return page_;
    }

  private:
    char* base_ = nullptr;
    std::size_t page_ = 0;
};

/// `text` in UTF-16 (RFC 2781), little-endian (`le`) or big-endian, after its byte order
/// mark (FF FE or FE FF): code points beyond U+FFFF as surrogate pairs.
inline std::string utf16_with_bom(const std::u32string& text, bool le) {
    std::string out = le ? "\xFF\xFE" : "\xFE\xFF";
    auto unit = [&](std::uint32_t u) {
        const char hi = static_cast<char>(u >> 8), lo = static_cast<char>(u & 0xFF);
        out += le ? lo : hi;
        out += le ? hi : lo;
    };
    for (const char32_t c : text) {
        if (c >= 0x10000) {
            unit(0xD800 + ((c - 0x10000) >> 10));
            unit(0xDC00 + ((c - 0x10000) & 0x3FF));
        } else {
            unit(c);
        }
    }
    return out;
}

} // namespace fastread_test

#endif // FASTREAD_TEST_BYTES_HPP
