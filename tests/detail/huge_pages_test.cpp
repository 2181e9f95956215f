// detail/huge_pages.hpp: a big buffer about to be filled is advised to take huge pages (its
// mapping's VmFlags in /proc/self/smaps say "hg"); a small one is left alone.

#include <fastread/detail/huge_pages.hpp>

#include <catch2/catch.hpp>

#include <cstddef>
#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

#if defined(__linux__) && defined(MADV_HUGEPAGE)
// The VmFlags line of the mapping that holds `p`, from /proc/self/smaps ("" if none).
std::string vm_flags_of(const void* p) {
    const auto at = reinterpret_cast<std::uintptr_t>(p);
    std::ifstream smaps("/proc/self/smaps");
    std::string line;
    bool inside = false;
    while (std::getline(smaps, line)) {
        std::uintptr_t from = 0, to = 0;
        char dash = 0;
        std::istringstream head(line);
        if (head >> std::hex >> from >> dash >> to && dash == '-') {
            inside = at >= from && at < to;
        } else if (inside && line.rfind("VmFlags:", 0) == 0) {
            return line + " ";
        }
    }
    return "";
}
#endif

} // namespace

TEST_CASE("huge_pages: a big vector being filled is advised, a small one is not", "[detail]") {
    std::vector<double> big;
    fastread::detail::reserve_filled(big, (std::size_t{16} << 20) / sizeof(double));
    REQUIRE(big.capacity() == (std::size_t{16} << 20) / sizeof(double));
    std::vector<double> small;
    fastread::detail::reserve_filled(small, 100);
    REQUIRE(small.capacity() == 100);
    // A reserve that needs no room changes nothing.
    fastread::detail::reserve_filled(small, 10);
    CHECK(small.capacity() == 100);
    std::vector<bool> bits; // no data(): reserved, never advised
    fastread::detail::reserve_filled(bits, std::size_t{64} << 20);
    CHECK(bits.capacity() >= (std::size_t{64} << 20));
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    // The middle of the big one lies in its 2 MiB-aligned interior, which took the advice
    // (where the kernel has transparent huge pages at all).
    const std::string flags = vm_flags_of(big.data() + big.capacity() / 2);
    REQUIRE_FALSE(flags.empty());
    if (std::ifstream("/sys/kernel/mm/transparent_hugepage/enabled")) {
        CHECK(flags.find(" hg ") != std::string::npos);
    }
    const std::string small_flags = vm_flags_of(small.data());
    REQUIRE_FALSE(small_flags.empty());
    CHECK(small_flags.find(" hg ") == std::string::npos);
#endif
}
