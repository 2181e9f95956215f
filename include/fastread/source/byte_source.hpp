#include "../detail/cxx20.hpp"
#if FASTREAD_CXX20 && !defined(FASTREAD_SOURCE_BYTE_SOURCE_HPP)
#define FASTREAD_SOURCE_BYTE_SOURCE_HPP

/// @file
/// The `byte_source` concept every parser consumes, its optional refinements, and
/// `memory_source` for bytes already in memory.

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>

#include "../result.hpp"

namespace fastread {

/// A source of bytes handed out in chunks.
///
/// `next()` returns the next chunk; an empty span means the input has ended (and every
/// later call returns an empty span too). A chunk stays valid until the next call to
/// `next()` (or `read_into()`), and the chunks in order are the input, byte for byte.
/// Sources are move-only owners of what they opened; a borrowed `FILE*`, descriptor or
/// stream is never closed.
template <class S>
concept byte_source = requires(S& s) {
    { s.next() } -> std::same_as<std::span<const char>>;
};

/// A source that holds the whole input in memory at once: `bytes()` is all of it, and
/// `next()` hands it out as a single chunk. Parsers take a fast path over `bytes()`.
template <class S>
concept contiguous_source = byte_source<S> && requires(const S& s) {
    { s.bytes() } -> std::same_as<std::span<const char>>;
};

/// A streaming source that can fill the caller's buffer straight from the kernel:
/// `read_into(dst)` reads the bytes that follow the last chunk `next()` returned into
/// `dst` and returns how many arrived, fewer than `dst.size()` only at the end of input.
/// A P6 raster lands in the image's samples this way with one copy.
template <class S>
concept direct_read_source = byte_source<S> && requires(S& s, std::span<char> dst) {
    { s.read_into(dst) } -> std::same_as<std::size_t>;
};

/// A source that knows, from `fstat`, how many bytes it will deliver in all
/// (`std::nullopt` for pipes, terminals and `/proc` files). Only a hint for sizing buffers:
/// a file can change while it is read, so parsers never reject input because of it.
template <class S>
concept sized_source = byte_source<S> && requires(const S& s) {
    { s.size_hint() } -> std::same_as<std::optional<std::uint64_t>>;
};

/// A source that can report a read error as a value: `try_next()` is `next()` that, on a
/// read error, ends the input (returns an empty span, as every later call does) and keeps
/// the error in `error()` instead of throwing. The parsers prefer it, so that their `try_`
/// forms return a source's read error without an exception. (A `direct_read_source` that
/// models it also has `try_read_into(dst)`, the same for `read_into`.)
template <class S>
concept reporting_source = byte_source<S> && requires(S& s, const S& cs) {
    { s.try_next() } -> std::same_as<std::span<const char>>;
    { cs.error() } -> std::convertible_to<const fastread::error&>;
};

/// A source opened from a path, which error messages name.
template <class S>
concept named_source = requires(const S& s) {
    { s.path() } -> std::convertible_to<const std::filesystem::path&>;
};

/// Bytes already in memory, handed out as one chunk. Borrows the memory: it must outlive
/// the source. Useful for parsing a buffer the caller filled (a network message, a test).
class memory_source {
  public:
    memory_source() noexcept = default;
    /// Hands out `bytes` (borrowed) as one chunk.
    explicit memory_source(std::span<const char> bytes) noexcept : bytes_(bytes) {}

    /// The whole buffer on the first call, then an empty span.
    std::span<const char> next() noexcept {
        if (done_) {
            return {};
        }
        done_ = true;
        return bytes_;
    }
    /// The whole buffer.
    std::span<const char> bytes() const noexcept { return bytes_; }

  private:
    std::span<const char> bytes_;
    bool done_ = false;
};

namespace detail {
/// The file name a source was opened from, for error messages; empty when it has none.
template <class S>
std::string source_name(const S& s) {
    if constexpr (named_source<S>) {
        return s.path().string();
    } else {
        return {};
    }
}
} // namespace detail

} // namespace fastread

#endif // FASTREAD_SOURCE_BYTE_SOURCE_HPP
