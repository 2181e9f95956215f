// Built with -fno-exceptions -fno-rtti: fastread/result.hpp compiles there, a result's error
// reads the same, and value() of an error reports through the handler the program set
// (which here ends the process with status 0, as a handler may; CTest result_no_exceptions
// matches its line).
#include <fastread/result.hpp>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <system_error>

namespace {

void handler(const fastread::error& e) noexcept {
    std::printf("handled: %s (%s, offset %llu)\n", e.message().c_str(), e.code().message().c_str(),
                static_cast<unsigned long long>(e.offset().value_or(0)));
    std::fflush(stdout);
    std::_Exit(0);
}

} // namespace

int main() {
    const fastread::result<int> good(7);
    const fastread::result<int> bad(fastread::error(fastread::errc::truncated_data,
                                                    "a.pgm: byte 14: the input ends", "a.pgm", 14));
    if (!good || *good != 7 || bad || bad.error().offset() != 14u ||
        bad.error().code() != fastread::errc::truncated_data) {
        std::printf("wrong result\n");
        return 1;
    }
    fastread::set_error_handler(&handler);
    (void)bad.value(); // reports through the handler, which exits
    std::printf("value() returned\n");
    return 1;
}
