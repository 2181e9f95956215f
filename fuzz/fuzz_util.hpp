#ifndef FASTREAD_FUZZ_UTIL_HPP
#define FASTREAD_FUZZ_UTIL_HPP

// Helpers shared by the libFuzzer targets: a source that hands out the input in chunks of
// a size taken from the input, and a failure that every sanitizer and libFuzzer report.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace fastread_fuzz {

/// A byte_source over `bytes` in chunks of `chunk_size` (at least 1) bytes.
class chunked_source {
  public:
    chunked_source(std::span<const char> bytes, std::size_t chunk_size)
        : bytes_(bytes), chunk_(std::max<std::size_t>(1, chunk_size)) {}

    std::span<const char> next() {
        const std::size_t n = std::min(chunk_, bytes_.size() - at_);
        std::span<const char> out = bytes_.subspan(at_, n);
        at_ += n;
        return out;
    }

  private:
    std::span<const char> bytes_;
    std::size_t chunk_;
    std::size_t at_ = 0;
};

/// What a decode gave: the samples, or a parse_error's offset and reason.
struct outcome {
    std::vector<unsigned> samples;
    std::optional<std::uint64_t> offset;
    std::string reason;
    bool operator==(const outcome&) const = default;
};

/// Reports a broken invariant and aborts, which libFuzzer records as a crash.
[[noreturn]] inline void fail(const char* what) {
    std::fprintf(stderr, "fastread fuzz: invariant broken: %s\n", what);
    std::abort();
}

inline void check(bool ok, const char* what) {
    if (!ok) {
        fail(what);
    }
}

/// Splits the input: its first byte (if any) as a parameter, the rest as data.
struct split_input {
    std::uint8_t param = 0;
    std::span<const char> data;
};

inline split_input split(const std::uint8_t* data, std::size_t size) {
    split_input s;
    if (size > 0) {
        s.param = data[0];
        s.data = std::span<const char>(reinterpret_cast<const char*>(data) + 1, size - 1);
    }
    return s;
}

} // namespace fastread_fuzz

#endif // FASTREAD_FUZZ_UTIL_HPP
