// The public header first: it includes this one at its end, after what this one uses.
#include "../detail/cxx20.hpp"
#include "../numbers.hpp"
#if FASTREAD_CXX20 && !defined(FASTREAD_NUMBERS_SOURCE_HPP)
#define FASTREAD_NUMBERS_SOURCE_HPP

/// @file
/// The numbers of a byte source: `try_numbers(source)`, `columns(source)` and the
/// single-pass `number_range`, read on the calling thread (the rules: fastread/numbers.hpp).
/// numbers.hpp includes this header; in the compiled mode (FASTREAD_SEPARATE_COMPILATION),
/// where numbers.hpp declares the path forms only, include it for these.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <iterator>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "../detail/call_setup.hpp"
#include "../detail/source_ref.hpp"
#include "../error.hpp"
#include "../io.hpp"
#include "../result.hpp"
#include "../source/byte_source.hpp"
#include "detail/entry.hpp"
#include "detail/parse.hpp"

namespace fastread {

/// The numbers of `source` (any byte_source: a stdio_source on stdin, a read_source on a
/// pipe, an mmap_source...), read chunk by chunk on the calling thread; `io` and `threads`
/// are not used. Errors as for try_numbers(path), without a path; a reporting source's
/// read error.
template <class T, byte_source Source>
result<std::vector<T>> try_numbers(Source& source, number_options options = {}) {
    detail::check_number_type<T>();
    detail::check_number_conversion<T>();
    return detail::try_numbers_source<std::vector<T>>(source, options);
}

/// The numbers of `source` (see try_numbers(source)).
/// @throws parse_error (offset, line, column), what the source throws.
template <class T, byte_source Source>
std::vector<T> numbers(Source& source, number_options options = {}) {
    return detail::value_or_throw(try_numbers<T>(source, options));
}

/// The columns of `source` (any byte_source), read chunk by chunk on the calling thread.
template <class... T, byte_source Source>
result<std::tuple<std::vector<T>...>> try_columns(Source& source, number_options options = {}) {
    static_assert(sizeof...(T) > 0, "fastread::columns needs at least one column type");
    (detail::check_number_type<T>(), ...);
    (detail::check_number_conversion<T>(), ...);
    return detail::try_numbers_source<std::tuple<std::vector<T>...>>(source, options);
}

/// The columns of `source` (see try_columns(source)).
/// @throws parse_error (offset, line, column), what the source throws.
template <class... T, byte_source Source>
std::tuple<std::vector<T>...> columns(Source& source, number_options options = {}) {
    return detail::value_or_throw(try_columns<T...>(source, options));
}

/// The numbers of a byte source as a single-pass range, converted a block at a time
/// (256 KiB of text at most in memory beyond the source's buffer): for input that does not
/// fit in memory, or that arrives on a pipe while it is read.
///
/// ```
/// fastread::stdio_source in(stdin);
/// double sum = 0;
/// for (double x : fastread::number_range<double>(in)) sum += x;
/// ```
///
/// The source is borrowed and must outlive the range; `io` and `threads` are not used.
/// Errors are thrown by `begin()` or an increment (parse_error with offset, line and
/// column; what the source throws), after every number before the error was handed out.
/// A range made by try_number_range throws none: an error ends the iteration and is kept
/// in `error()`.
template <class T>
class number_range {
    static_assert(detail::is_number_type<T>, "number_range reads the standard integer types "
                                             "(not bool or the character types), float and "
                                             "double");
    using sink_type = detail::vector_sink<T>;

  public:
    /// An input iterator over the numbers, equal to std::default_sentinel_t after the last.
    class iterator {
      public:
        ///@{
        /// The std::input_iterator members: `*` the current number, `++` the next one,
        /// `== std::default_sentinel` once there is none.
        using iterator_concept = std::input_iterator_tag;
        using value_type = T;
        using difference_type = std::ptrdiff_t;

        iterator() = default;
        T operator*() const noexcept { return range_->state_->batch[range_->at_]; }
        iterator& operator++() {
            if (!range_->advance()) {
                range_ = nullptr;
            }
            return *this;
        }
        void operator++(int) { ++*this; }
        friend bool operator==(const iterator& it, std::default_sentinel_t) noexcept {
            return it.range_ == nullptr;
        }
        ///@}

      private:
        friend class number_range;
        explicit iterator(number_range* range) noexcept : range_(range) {}
        number_range* range_ = nullptr;
    };

    /// Reads `source` (borrowed) as `options` say.
    /// @throws std::invalid_argument for contradictory options.
    template <byte_source Source>
    requires(!std::is_same_v<std::remove_cvref_t<Source>, number_range>) explicit number_range(
        Source& source, number_options options = {})
        : source_(source),
          state_(std::make_unique<state>(
              (detail::settle_call_or_throw(options),
               detail::value_or_throw(detail::syntax_for<std::vector<T>>(options))))) {}

    /// Only in a range made by try_number_range: the error that ended the iteration (a
    /// parse_error's or the source's), or none.
    const fastread::error& error() const noexcept { return error_; }

    ///@{
    /// Moves the range; not copyable.
    number_range(number_range&&) noexcept = default;
    number_range& operator=(number_range&&) noexcept = default;
    ///@}

    /// Reads up to the first number; call once (single pass).
    iterator begin() {
        if (started_) {
            return iterator(done_ ? nullptr : this);
        }
        started_ = true;
        return iterator(refill() ? this : nullptr);
    }
    /// The end of the numbers.
    std::default_sentinel_t end() const noexcept { return {}; }

  private:
    // On the heap, so that the scanner's pointers to the syntax and the batch stay valid
    // when the range moves.
    template <class U, byte_source Source>
    friend result<number_range<U>> try_number_range(Source& source, number_options options);

    // try_number_range's range: reports its errors through error().
    template <byte_source Source>
    number_range(Source& source, const detail::number_syntax& syntax)
        : source_(source), state_(std::make_unique<state>(syntax)), reporting_(true) {}

    struct state {
        detail::number_syntax syntax;
        std::vector<T> batch;
        sink_type sink{&batch};
        detail::number_stream<sink_type> stream{syntax, sink};
        fastread::error pending; // an error found after the numbers still in the batch
        detail::input_head head; // the input's first bytes, to name a binary format
        explicit state(const detail::number_syntax& s) : syntax(s) {}
    };

    // The stream's error, a binary format named at byte 0 (detail::name_format; the head
    // completed from the source first).
    fastread::error failure() {
        state& s = *state_;
        detail::number_failure f = s.stream.failure();
        if (detail::at_format_signature(f)) {
            for (std::span<const char> more; !s.head.full() && !(more = source_.next()).empty();) {
                s.head.add(more.data(), more.data() + more.size());
            }
            detail::name_format(f, s.head);
        }
        return detail::number_error(f, {});
    }

    bool advance() {
        if (++at_ < state_->batch.size()) {
            return true;
        }
        return refill();
    }

    // Scans chunks until at least one number is waiting or the input ended.
    bool refill() {
        state& s = *state_;
        s.batch.clear();
        at_ = 0;
        while (s.batch.empty()) {
            if (s.pending.code()) {
                done_ = true;
                if (reporting_) {
                    error_ = std::exchange(s.pending, fastread::error());
                    return false;
                }
                detail::throw_error(std::exchange(s.pending, fastread::error()));
            }
            if (done_) {
                return false;
            }
            const std::span<const char> chunk = source_.next();
            if (chunk.empty()) {
                done_ = true;
                if (const fastread::error* e = source_.error(); e != nullptr && e->code()) {
                    s.pending = *e;
                } else if (!s.stream.finish(offset_)) {
                    s.pending = failure();
                }
                continue;
            }
            s.head.add(chunk.data(), chunk.data() + chunk.size());
            if (!s.stream.feed(chunk.data(), chunk.data() + chunk.size(), offset_)) {
                done_ = true;
                s.pending = failure();
            } else if (s.stream.done()) {
                done_ = true; // max_rows read
            }
            offset_ += chunk.size();
        }
        return true;
    }

    detail::source_ref source_;
    std::unique_ptr<state> state_;
    std::size_t at_ = 0;
    std::uint64_t offset_ = 0;
    bool started_ = false;
    bool done_ = false;
    bool reporting_ = false;
    fastread::error error_;
};

/// `number_range<T>(source, options)` without exceptions: the range, or the error of
/// contradictory options (errc::invalid_argument) or of a process setting
/// (`FASTREAD_IO`, `FASTREAD_THREADS`; see fastread/io.hpp). An error while the range is
/// iterated (a malformed number, a read error of the source) ends the iteration after every
/// number before it and is kept: `range.error()`. Never throws but `std::bad_alloc` and
/// what the source throws.
///
/// ```
/// auto numbers = fastread::try_number_range<double>(in);
/// if (!numbers) { /* numbers.error() */ }
/// for (double x : *numbers) { ... }
/// if (numbers->error().code()) { /* stopped early */ }
/// ```
template <class T, byte_source Source>
result<number_range<T>> try_number_range(Source& source, number_options options = {}) {
    if (const result<number_options> settled = detail::settle_call(options); !settled) {
        return settled.error();
    }
    result<detail::number_syntax> syntax = detail::syntax_for<std::vector<T>>(options);
    if (!syntax) {
        return syntax.error();
    }
    return number_range<T>(source, *syntax);
}

} // namespace fastread

#endif // FASTREAD_NUMBERS_SOURCE_HPP
