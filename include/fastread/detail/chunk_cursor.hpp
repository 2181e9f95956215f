#ifndef FASTREAD_DETAIL_CHUNK_CURSOR_HPP
#define FASTREAD_DETAIL_CHUNK_CURSOR_HPP

// A read position over a byte_source's chunks that tracks the absolute input offset. Over a
// source_ref (the decoders' erased source) it holds the handle itself and asks the source's
// abilities at run time.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <type_traits>

#include "../source/byte_source.hpp"
#include "source_ref.hpp"

namespace fastread::detail {

template <byte_source Source>
class chunk_cursor {
    static constexpr bool erased = std::is_same_v<Source, source_ref>;

  public:
    /// Reads `source` (a source_ref is taken by value, any other source borrowed).
    explicit chunk_cursor(std::conditional_t<erased, source_ref, Source&> source) noexcept
        : source_(hold(source)) {}

    /// Input offset of the current byte.
    std::uint64_t offset() const noexcept {
        return end_offset_ - static_cast<std::uint64_t>(end - pos);
    }

    /// Makes at least one byte available at `pos`; false at end of input (idempotent). A
    /// reporting_source's read error ends the input: the source keeps it.
    bool fill() {
        while (pos == end) {
            if (eof_) {
                return false;
            }
            std::span<const char> chunk;
            if constexpr (!erased && reporting_source<Source>) {
                chunk = src().try_next(); // a read error ends the input, kept by the source
            } else {
                chunk = src().next(); // source_ref: the source's try_next where it has one
            }
            if (chunk.empty()) {
                eof_ = true;
                return false;
            }
            pos = chunk.data();
            end = pos + chunk.size();
            end_offset_ += chunk.size();
        }
        return true;
    }

    /// The current byte (0..255), or -1 at end of input.
    int peek() { return fill() ? static_cast<unsigned char>(*pos) : -1; }

    /// Bytes of input known to remain after the current byte, when the source knows:
    /// exactly for a contiguous source, from fstat for a sized one.
    std::optional<std::uint64_t> known_remaining() const noexcept {
        if constexpr (erased) {
            if (source_.contiguous()) {
                return source_.whole().size() - offset();
            }
        }
        if constexpr (contiguous_source<Source>) {
            return source_->bytes().size() - offset();
        } else if constexpr (sized_source<Source>) {
            std::optional<std::uint64_t> total = src().size_hint();
            if (total && *total >= offset()) {
                return *total - offset();
            }
            return std::nullopt;
        } else {
            return std::nullopt;
        }
    }

    /// Whether the source holds the whole input at once (its known_remaining() is then exact
    /// and the rest of the input is one chunk).
    bool contiguous() const noexcept {
        if constexpr (erased) {
            return source_.contiguous();
        } else {
            return contiguous_source<Source>;
        }
    }

    /// Reads of at least this many bytes go straight from a source that can (`read_into`);
    /// shorter ones (a row of a small image) through a chunk, not a system call each.
    static constexpr std::size_t direct_read_min = std::size_t{16} << 10;

    /// Copies the next `n` bytes into `dst`: what remains of the current chunk, then
    /// straight from the source when it can (`read_into`) and at least direct_read_min bytes
    /// remain, else chunk by chunk. Returns the count copied, fewer than `n` only at end of
    /// input.
    std::size_t read(char* dst, std::size_t n) {
        std::size_t done = 0;
        while (done < n) {
            if (pos == end) {
                bool direct = n - done >= direct_read_min;
                if constexpr (erased) {
                    direct = direct && source_.reads_into();
                } else {
                    direct = direct && direct_read_source<Source>;
                }
                if (direct) {
                    if (eof_) {
                        break;
                    }
                    std::size_t got = read_into(std::span<char>(dst + done, n - done));
                    end_offset_ += got;
                    done += got;
                    if (done < n) {
                        eof_ = true;
                    }
                    break;
                } else if (!fill()) {
                    break;
                }
            }
            std::size_t take = static_cast<std::size_t>(end - pos);
            if (take > n - done) {
                take = n - done;
            }
            std::memcpy(dst + done, pos, take);
            pos += take;
            done += take;
        }
        return done;
    }

    const char* pos = nullptr; ///< current byte
    const char* end = nullptr; ///< end of the current chunk

  private:
    // A source_ref is held by value (a cursor may be copied or moved with its owner), any
    // other source by address.
    using held = std::conditional_t<erased, source_ref, Source*>;

    static held hold(Source& source) noexcept {
        if constexpr (erased) {
            return source;
        } else {
            return &source;
        }
    }
    Source& src() noexcept {
        if constexpr (erased) {
            return source_;
        } else {
            return *source_;
        }
    }
    const Source& src() const noexcept {
        if constexpr (erased) {
            return source_;
        } else {
            return *source_;
        }
    }
    std::size_t read_into(std::span<char> dst) {
        if constexpr (!erased && reporting_source<Source> && direct_read_source<Source>) {
            return src().try_read_into(dst);
        } else if constexpr (erased || direct_read_source<Source>) {
            return src().read_into(dst);
        } else {
            return 0; // not reached: read() asks first
        }
    }

    held source_;
    std::uint64_t end_offset_ = 0; ///< input offset of `end`
    bool eof_ = false;
};

/// The cursor the format decoders read through: one compiled decoder for every source.
using decoder_cursor = chunk_cursor<source_ref>;

} // namespace fastread::detail

#endif // FASTREAD_DETAIL_CHUNK_CURSOR_HPP
