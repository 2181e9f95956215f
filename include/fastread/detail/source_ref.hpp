#ifndef FASTREAD_DETAIL_SOURCE_REF_HPP
#define FASTREAD_DETAIL_SOURCE_REF_HPP

// A byte source seen through function pointers. The format decoders (pnm, ppm, pfm) take
// their input as a chunk_cursor<source_ref>, so each is compiled once per sample type,
// whatever source it reads (a map, read(2), stdio, a stream, the caller's own type): what a
// source can do beyond next() (hand out all its bytes at once, read into the caller's
// buffer, know its size) becomes a run-time question, asked once per image or per large
// read, never per byte.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <type_traits>

#include "../source/byte_source.hpp"

namespace fastread::detail {

/// A borrowed byte source (the source must outlive every copy); a cheap handle, copyable.
/// It models byte_source only: its other abilities are asked at run time.
class source_ref {
  public:
    /// Borrows `source`.
    template <byte_source Source>
    requires(!std::is_same_v<Source, source_ref>) explicit source_ref(Source& source) noexcept
        : object_(&source), next_([](void* s) {
              if constexpr (reporting_source<Source>) {
                  return static_cast<Source*>(s)->try_next();
              } else {
                  return static_cast<Source*>(s)->next();
              }
          }) {
        if constexpr (reporting_source<Source>) {
            error_ = [](const void* s) -> const fastread::error* {
                const fastread::error& e = static_cast<const Source*>(s)->error();
                return e.code() ? &e : nullptr;
            };
        }
        if constexpr (contiguous_source<Source>) {
            bytes_ = [](const void* s) { return static_cast<const Source*>(s)->bytes(); };
        }
        if constexpr (direct_read_source<Source>) {
            read_into_ = [](void* s, std::span<char> dst) {
                if constexpr (reporting_source<Source>) {
                    return static_cast<Source*>(s)->try_read_into(dst);
                } else {
                    return static_cast<Source*>(s)->read_into(dst);
                }
            };
        }
        if constexpr (sized_source<Source>) {
            size_hint_ = [](const void* s) { return static_cast<const Source*>(s)->size_hint(); };
        }
    }

    /// The read error that ended a reporting_source's input, or nullptr (none, or a source
    /// that throws its errors instead).
    const fastread::error* error() const noexcept {
        return error_ != nullptr ? error_(object_) : nullptr;
    }

    /// The source's next chunk (empty at the end), as byte_source::next; a
    /// reporting_source's try_next (a read error ends the input, see error()).
    std::span<const char> next() { return next_(object_); }

    /// Whether the source holds the whole input at once (contiguous_source).
    bool contiguous() const noexcept { return bytes_ != nullptr; }
    /// The whole input; only when contiguous().
    std::span<const char> whole() const noexcept { return bytes_(object_); }

    /// Whether the source can fill the caller's buffer itself (direct_read_source).
    bool reads_into() const noexcept { return read_into_ != nullptr; }
    /// direct_read_source::read_into; only when reads_into().
    std::size_t read_into(std::span<char> dst) { return read_into_(object_, dst); }

    /// sized_source::size_hint, or nothing when the source does not say.
    std::optional<std::uint64_t> size_hint() const {
        return size_hint_ != nullptr ? size_hint_(object_) : std::nullopt;
    }

  private:
    void* object_;
    std::span<const char> (*next_)(void*);
    std::span<const char> (*bytes_)(const void*) = nullptr;
    std::size_t (*read_into_)(void*, std::span<char>) = nullptr;
    std::optional<std::uint64_t> (*size_hint_)(const void*) = nullptr;
    const fastread::error* (*error_)(const void*) = nullptr;
};

} // namespace fastread::detail

#endif // FASTREAD_DETAIL_SOURCE_REF_HPP
