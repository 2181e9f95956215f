#include "../detail/cxx20.hpp"
#if FASTREAD_CXX20 && !defined(FASTREAD_PNM_ROW_READER_HPP)
#define FASTREAD_PNM_ROW_READER_HPP

/// @file
/// `pnm::row_reader`: Netpbm images from any byte source (a pipe, a socket, a file), image
/// by image and row by row, holding one row. Included by fastread/pnm.hpp; in the
/// separately compiled mode (FASTREAD_SEPARATE_COMPILATION) include it yourself.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "../detail/chunk_cursor.hpp"
#include "../error.hpp"
#include "../source/byte_source.hpp"
#include "detail/parse.hpp"
#include "detail/rows.hpp"
#include "image.hpp"

namespace fastread::pnm {

/// Reads Netpbm images (P1 to P7, in any mix, back to back as pnm::reader reads them) from a
/// byte source a row at a time, holding one row of samples (plus the source's chunk and
/// P4's packed row): a pipe of any length in O(row) memory, as libnetpbm's
/// `pnm_readpamrow` reads one. The samples and the errors, at the same byte offsets, are
/// those of `pnm::load` (but that a raw raster both truncated and holding a sample above
/// maxval reports the problem its rows meet first).
///
/// ```
/// fastread::stdio_source in(stdin);
/// fastread::pnm::row_reader<std::uint16_t> rows(in);
/// while (std::optional<fastread::pnm::header> h = rows.next_image()) {
///     for (std::span<const std::uint16_t> row : rows) { /* h->width * h->depth samples */ }
/// }
/// ```
/// The source (any `byte_source`) is borrowed and must outlive the reader. Not copyable
/// (the rows' range refers to it).
/// @tparam Sample `std::uint8_t` (maxval <= 255) or `std::uint16_t` (any maxval).
template <class Sample = std::uint8_t>
class row_reader {
    static_assert(std::is_same_v<Sample, std::uint8_t> || std::is_same_v<Sample, std::uint16_t>,
                  "fastread::pnm::row_reader samples are std::uint8_t or std::uint16_t");

  public:
    /// Reads nothing yet: the first next_image() does. `options`' limits apply to each
    /// header (and bound the row buffer); its `io` and `threads` do not.
    /// @throws std::bad_alloc only (copying the source's path for messages).
    template <byte_source Source>
    explicit row_reader(Source& source, load_options options = {})
        : source_(source), cursor_(source_), name_(fastread::detail::source_name(source)),
          limits_(fastread::detail::limits_of(options)) {}

    row_reader(const row_reader&) = delete;
    row_reader& operator=(const row_reader&) = delete;

    /// Reads the next image's header, first skipping the rows of the current image not yet
    /// read: the header, or nothing when only whitespace remained (never on the first call:
    /// an input without any image is an error). `raster_offset` is an input offset.
    /// @throws fastread::parse_error with the input offset if the header (or a row skipped)
    ///         is malformed, or over a limit; what the source throws.
    std::optional<header> next_image() {
        return fastread::detail::value_or_throw(try_next_image());
    }

    /// `next_image` without exceptions: the header or nothing, or the `error` the throwing
    /// form reports (or a reporting_source's read error).
    result<std::optional<header>> try_next_image() {
        while (decoder_ && decoder_->rows_done() < header_.height) {
            result<std::span<const Sample>> skipped = try_next_row();
            if (!skipped) {
                return skipped.error();
            }
        }
        decoder_.reset();
        if (!fastread::detail::next_image_follows(cursor_, started_)) {
            if (const fastread::error* read_error = source_.error()) {
                return *read_error;
            }
            return std::optional<header>();
        }
        header_ = fastread::detail::pnm_header{};
        if (fastread::detail::pnm_error err = fastread::detail::parse_pnm_header(
                cursor_, sizeof(Sample), header_, true, limits_)) {
            return failed(err);
        }
        decoder_.emplace(header_, /*any_format=*/true);
        return std::optional<header>(fastread::detail::public_header(header_));
    }

    /// The next row of the current image: `width * depth` samples, valid until the next call;
    /// an empty span after its last row (or before any image).
    /// @throws fastread::parse_error with the input offset if the row is malformed or the
    ///         input ends before it; what the source throws.
    std::span<const Sample> next_row() { return fastread::detail::value_or_throw(try_next_row()); }

    /// `next_row` without exceptions: the row (empty after the last), or the `error` the
    /// throwing form reports (or a reporting_source's read error). After an error the image's
    /// remaining rows are empty and next_image() goes on after what was read.
    result<std::span<const Sample>> try_next_row() {
        if (!decoder_ || decoder_->rows_done() == header_.height) {
            return std::span<const Sample>();
        }
        // The row's samples arrive in pieces that double (64 Ki samples first), the buffer
        // growing with them: never more than twice what the input has justified, however
        // wide a row its header declares.
        const std::size_t total = decoder_->row_samples();
        constexpr std::size_t first_piece = std::size_t{1} << 16;
        for (std::size_t done = 0; done < total;) {
            std::size_t n = std::min(total - done, std::max(first_piece, done));
            if (done + n < total) {
                n -= n % 8; // P4: pieces of whole bytes
            }
            if (row_.size() < done + n) {
                row_.resize(done + n);
            }
            if (fastread::detail::pnm_error err = decoder_->next(cursor_, row_.data() + done, n)) {
                decoder_.reset();
                return failed(err);
            }
            done += n;
        }
        if (decoder_->rows_done() == header_.height) {
            decoder_->finish_image(cursor_);
        }
        return std::span<const Sample>(row_.data(), total);
    }

    /// Rows read of the current image.
    std::uint32_t rows_read() const noexcept { return decoder_ ? decoder_->rows_done() : 0; }

    /// Input offset, in bytes, of the next byte the reader will read.
    std::uint64_t offset() const noexcept { return cursor_.offset(); }

    /// The end of the rows' range.
    struct sentinel {};

    /// An input iterator over the rows of the current image: each row read when the
    /// iterator moves (next_row: its errors thrown from `begin()` and `++`).
    class iterator {
      public:
        using iterator_category = std::input_iterator_tag; ///< one pass
        using difference_type = std::ptrdiff_t;            ///< rows
        using value_type = std::span<const Sample>;        ///< one row's samples
        /// An iterator over no reader (equal to the sentinel).
        iterator() = default;
        /// The current row.
        value_type operator*() const noexcept { return row_; }
        /// Reads the next row.
        iterator& operator++() {
            row_ = reader_->next_row();
            return *this;
        }
        /// Reads the next row (the returned iterator is not to be used).
        void operator++(int) { ++*this; }
        /// True after the last row.
        friend bool operator==(const iterator& it, sentinel) noexcept { return it.row_.empty(); }

      private:
        friend class row_reader;
        explicit iterator(row_reader* reader) : reader_(reader), row_(reader->next_row()) {}
        row_reader* reader_ = nullptr;
        value_type row_;
    };

    /// Reads the current image's next row and iterates from it to the image's last row.
    iterator begin() { return iterator(this); }
    /// The end of the current image's rows.
    sentinel end() const noexcept { return {}; }

  private:
    fastread::error failed(const fastread::detail::pnm_error& err) {
        fastread::detail::pnm_error e = err;
        e.any_format = true;
        return fastread::detail::pnm_failure(e, source_.error(), name_);
    }

    fastread::detail::source_ref source_;
    fastread::detail::decoder_cursor cursor_;
    std::string name_;
    fastread::detail::pnm_limits limits_;
    fastread::detail::pnm_header header_;
    std::optional<fastread::detail::pnm_row_decoder<Sample>> decoder_;
    std::vector<Sample> row_;
    bool started_ = false;
};

} // namespace fastread::pnm

#endif // FASTREAD_PNM_ROW_READER_HPP
