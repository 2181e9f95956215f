// string_table::view::open and open_unchecked on untrusted bytes (a memfd, opened by its
// /proc/self/fd path). open either throws parse_error or gives a table whose every string
// lies inside the file; open_unchecked never lets [] read outside the map and at() either
// throws or agrees with [].

#include <fastread/string_table.hpp>

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <string>

#include "fuzz_util.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const int fd = ::memfd_create("fastread-fuzz-table", 0);
    fastread_fuzz::check(fd >= 0, "memfd_create");
    fastread_fuzz::check(::ftruncate(fd, 0) == 0, "ftruncate");
    for (std::size_t done = 0; done < size;) {
        const ssize_t put = ::pwrite(fd, data + done, size - done, static_cast<off_t>(done));
        fastread_fuzz::check(put > 0, "pwrite");
        done += static_cast<std::size_t>(put);
    }
    const std::string path = "/proc/self/fd/" + std::to_string(fd);
    try {
        const auto table = fastread::string_table::view::open(path);
        std::uint64_t bytes = 0;
        for (std::size_t i = 0; i < table.size(); ++i) {
            const std::string_view s = table[i];
            fastread_fuzz::check(table.at(i) == s, "at() agrees with []");
            bytes += s.size();
            // Touch every byte: AddressSanitizer cannot see a map, the page fault would.
            volatile char sink = 0;
            for (char c : s) {
                sink = static_cast<char>(sink ^ c);
            }
        }
        fastread_fuzz::check(bytes <= size, "strings fit in the file");
    } catch (const fastread::parse_error& e) {
        fastread_fuzz::check(e.offset() <= size, "error offset inside the file");
    }
    try {
        const auto table = fastread::string_table::view::open_unchecked(path);
        const std::size_t n = table.size() < 4096 ? table.size() : 4096;
        for (std::size_t i = 0; i < n; ++i) {
            const std::string_view s = table[i];
            volatile char sink = 0;
            for (char c : s) {
                sink = static_cast<char>(sink ^ c);
            }
            try {
                fastread_fuzz::check(table.at(i) == s, "at() agrees with [] when it accepts");
            } catch (const fastread::parse_error&) {
            }
        }
    } catch (const fastread::parse_error& e) {
        fastread_fuzz::check(e.offset() <= size, "error offset inside the file");
    }
    return 0;
}
