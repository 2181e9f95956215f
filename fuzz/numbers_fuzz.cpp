// fastread::numbers on untrusted bytes, differential against the C library: the input's
// first byte picks the type (double, float, int64, uint64, int32, uint8) and the chunk size
// of a second, streamed pass (a byte order mark at the start is skipped). Every
// whitespace-separated token that strtod / strtof / strtoll / strtoull (base 10) read whole, in
// range and not hexadecimal must come back bit for bit; the first token they reject must be the
// error, at its byte offset; the streamed pass must give the same numbers or the same error.

#include <fastread/numbers.hpp>
#include <fastread/source.hpp>

#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "fuzz_util.hpp"

namespace {

bool is_space(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

// The C library's value of `token`, or nothing where fastread must refuse it.
template <class T>
std::optional<T> reference(const std::string& token) {
    const char* s = token.c_str();
    char* end = nullptr;
    errno = 0;
    if constexpr (std::is_floating_point_v<T>) {
        std::size_t i = (s[0] == '+' || s[0] == '-') ? 1 : 0;
        if (s[i] == '0' && (s[i + 1] == 'x' || s[i + 1] == 'X')) {
            return std::nullopt; // hexadecimal: fastread does not take it
        }
        const T v = std::is_same_v<T, float> ? static_cast<T>(std::strtof(s, &end))
                                             : static_cast<T>(std::strtod(s, &end));
        if (end != s + token.size() || token.empty()) {
            return std::nullopt;
        }
        return v;
    } else if constexpr (std::is_signed_v<T>) {
        const long long v = std::strtoll(s, &end, 10);
        if (end != s + token.size() || token.empty() || errno == ERANGE ||
            v < std::numeric_limits<T>::min() || v > std::numeric_limits<T>::max()) {
            return std::nullopt;
        }
        return static_cast<T>(v);
    } else {
        const bool negative = s[0] == '-';
        const unsigned long long v = std::strtoull(s, &end, 10);
        if (end != s + token.size() || token.empty() || errno == ERANGE ||
            v > std::numeric_limits<T>::max() || (negative && v != 0)) {
            return std::nullopt; // strtoull negates "-5"; for fastread it is out of range
        }
        return static_cast<T>(v);
    }
}

template <class T>
bool same(T a, T b) {
    if constexpr (std::is_floating_point_v<T>) {
        if (std::isnan(a) || std::isnan(b)) {
            return std::isnan(a) && std::isnan(b) && std::signbit(a) == std::signbit(b);
        }
        return std::memcmp(&a, &b, sizeof a) == 0;
    } else {
        return a == b;
    }
}

template <class T>
void run(std::span<const char> data, std::size_t chunk) {
    // The reference: the tokens, converted, up to the first refused one.
    std::vector<T> want;
    std::optional<std::uint64_t> bad_offset;
    // A UTF-8 byte order mark at the start is skipped.
    const bool bom = data.size() >= 3 && std::memcmp(data.data(), "\xef\xbb\xbf", 3) == 0;
    for (std::size_t i = bom ? 3 : 0; i < data.size();) {
        if (is_space(data[i])) {
            ++i;
            continue;
        }
        std::size_t j = i;
        while (j < data.size() && !is_space(data[j])) {
            ++j;
        }
        const std::string token(data.data() + i, j - i);
        const std::optional<T> v = token.size() > fastread::detail::max_number_token_bytes
                                       ? std::nullopt
                                       : reference<T>(token);
        if (!v) {
            bad_offset = i;
            break;
        }
        want.push_back(*v);
        i = j;
    }

    fastread::memory_source whole(data);
    fastread::result<std::vector<T>> got = fastread::try_numbers<T>(whole);
    if (bad_offset) {
        fastread_fuzz::check(!got, "a token the C library refuses is an error");
        fastread_fuzz::check(got.error().offset() == bad_offset, "the error is at its token");
        fastread_fuzz::check(got.error().line().has_value() && got.error().column().has_value(),
                             "the error has a line and a column");
    } else {
        fastread_fuzz::check(static_cast<bool>(got), "what the C library reads is read");
        fastread_fuzz::check(got->size() == want.size(), "as many numbers as the C library");
        for (std::size_t k = 0; k < want.size(); ++k) {
            fastread_fuzz::check(same((*got)[k], want[k]), "the C library's value, bit for bit");
        }
    }

    fastread_fuzz::chunked_source pieces(data, chunk);
    fastread::result<std::vector<T>> streamed = fastread::try_numbers<T>(pieces);
    fastread_fuzz::check(static_cast<bool>(streamed) == static_cast<bool>(got),
                         "streamed and whole agree on success");
    if (got) {
        fastread_fuzz::check(streamed->size() == got->size(), "streamed: as many numbers");
        for (std::size_t k = 0; k < got->size(); ++k) {
            fastread_fuzz::check(same((*streamed)[k], (*got)[k]), "streamed: the same numbers");
        }
    } else {
        fastread_fuzz::check(streamed.error().message() == got.error().message(),
                             "streamed: the same error");
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const auto in = fastread_fuzz::split(data, size);
    const std::size_t chunk = 1 + (in.param >> 3);
    switch (in.param & 7) {
    case 0:
    case 6:
        run<double>(in.data, chunk);
        break;
    case 1:
        run<float>(in.data, chunk);
        break;
    case 2:
    case 7:
        run<std::int64_t>(in.data, chunk);
        break;
    case 3:
        run<std::uint64_t>(in.data, chunk);
        break;
    case 4:
        run<std::int32_t>(in.data, chunk);
        break;
    default:
        run<std::uint8_t>(in.data, chunk);
        break;
    }
    return 0;
}
