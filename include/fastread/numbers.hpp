#include "detail/cxx20.hpp"
#if FASTREAD_CXX20 && !defined(FASTREAD_NUMBERS_HPP)
#define FASTREAD_NUMBERS_HPP

/// @file
/// `fastread::numbers`, `columns` and `number_range`: integers and floating-point numbers
/// from text (point clouds, edge lists, Matrix Market bodies, logs, CSV of numbers), from a
/// file, a pipe or any byte source.
///
/// ```
/// std::vector<double> v = fastread::numbers<double>("samples.txt");
/// auto [x, y, z] = fastread::columns<double, double, double>(
///     "cloud.xyz", fastread::number_options{.comment = '#'});
/// for (std::int64_t n : fastread::number_range<std::int64_t>(source)) { ... }
/// ```
///
/// The text: numbers separated by `separators` (default: any whitespace), in lines ended
/// by LF. Integers (any standard integer type): an optional `+` or `-`, then decimal
/// digits, as `strtoll`/`strtoull` in base 10 read them; a value outside the type's range is
/// an error. Floating point (`float`, `double`): what `strtod`/`strtof` accept in the "C"
/// locale except hexadecimal: an optional sign, digits with an optional `.`, an optional
/// exponent, `inf`, `infinity`, `nan`, `nan(chars)`, in any case; correctly rounded, so the
/// value is strtod's bit for bit (an overflow is ±infinity, an underflow ±0 or a
/// subnormal, as strtod returns them; `nan(chars)` is the default quiet NaN). The
/// conversion is fast_float's where `<fast_float/fast_float.h>` is installed (Debian
/// `libfast-float-dev`), else `std::from_chars`.
///
/// Rules (the same for every entry point, and the same whether the input comes whole, in
/// chunks or in slices on threads):
/// - A token is a run of bytes that are neither separators, whitespace, LF nor the comment
///   byte; each token must be one whole number of the type asked for.
/// - Whitespace separators (the default): any run of them separates two numbers. A
///   separator that is not whitespace (`,` `;`): exactly one between two numbers of a line;
///   whitespace around it is skipped; two in a row, one at the start or the end of a line
///   is an empty field (an error). Whitespace that is not among the separators is skipped
///   around a number but does not separate two.
/// - CR is whitespace: CR LF line ends read as LF.
/// - `comment`: that byte and the rest of its line are skipped.
/// - Blank lines, lines of whitespace and comment-only lines are skipped; an empty input
///   gives no numbers.
/// - `columns` (and columns<T...>): every line that has a number has exactly that many.
///
/// Errors are `parse_error`s (the `try_` forms' `error`) with the byte offset, the line
/// (1-based, counting every line) and the column (the token's 1-based index on its line):
/// `cloud.xyz: byte 1843: line 57, column 2: "1.2.3" is not a number`.

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

#include "detail/call_setup.hpp"
#include "detail/source_ref.hpp"
#include "error.hpp"
#include "io.hpp"
#include "numbers/detail/parse.hpp"
#include "result.hpp"
#include "source/byte_source.hpp"

namespace fastread {

/// How numbers are read from text.
struct number_options {
    /// The bytes that separate numbers: whitespace ones (any run is one separation) and
    /// others (exactly one between two numbers, e.g. "," or ";"). Bytes that can be part of
    /// a number (digits, letters, + - . ( ) _) are refused (std::invalid_argument).
    std::string_view separators = " \t\r\n\f\v";
    /// A byte that starts a comment running to the end of its line (e.g. '#', '%'); 0: none.
    char comment = 0;
    /// Lines skipped whole at the start (a header), whatever they hold.
    std::size_t skip_lines = 0;
    /// Numbers per line, checked on every line that has one (a short or long line is a
    /// `parse_error` naming it); 0: any count. columns<T...> sets it to its column count.
    std::size_t columns = 0;
    /// Paths only: read (the default, `process_setting`, reads unless `FASTREAD_IO=map`) or map the
    /// file (fastread/io.hpp). A mapped file is scanned on one thread.
    io_mode io = io_mode::process_setting;
    /// Paths only: the most threads the call uses, the calling thread included (1: no
    /// helper thread); 0: the process setting (fastread/threads.hpp). The result is the
    /// same for every setting.
    unsigned threads = 0;
};

namespace detail {

template <class R>
result<number_syntax> syntax_for(const number_options& options) {
    std::size_t columns = options.columns;
    if constexpr (sink_of<R>::columns != 0) {
        if (columns != 0 && columns != sink_of<R>::columns) {
            return invalid_argument_value("columns: number_options::columns is " +
                                          std::to_string(columns) + ", the call reads " +
                                          std::to_string(sink_of<R>::columns) + " columns");
        }
        columns = sink_of<R>::columns;
    }
    return make_number_syntax(options.separators, options.comment, options.skip_lines, columns);
}

template <class R>
result<R> try_numbers_file(const std::filesystem::path& path, const number_options& asked) {
    const result<number_options> settled = settle_call(asked);
    if (!settled) {
        return settled.error();
    }
    const number_options& options = *settled;
    result<number_syntax> syntax = syntax_for<R>(options);
    if (!syntax) {
        return syntax.error();
    }
    const thread_scope threads(options.threads);
    return numbers_from_file<R>(path, *syntax, options.io);
}

template <class R, class Source>
result<R> try_numbers_source(Source& source, const number_options& options) {
    if (const result<number_options> settled = settle_call(options); !settled) {
        return settled.error();
    }
    result<number_syntax> syntax = syntax_for<R>(options);
    if (!syntax) {
        return syntax.error();
    }
    return numbers_from_stream<R>(source, *syntax, std::string());
}

template <class T>
constexpr void check_number_type() {
    static_assert(is_number_type<T>, "fastread::numbers reads the standard integer types "
                                     "(not bool or the character types), float and double");
#if !FASTREAD_HAS_FAST_FLOAT && !defined(__cpp_lib_to_chars)
    static_assert(!std::is_floating_point_v<T>,
                  "floating-point numbers need <fast_float/fast_float.h> or a standard "
                  "library with std::from_chars for floating point");
#endif
}

} // namespace detail

/// The numbers of the file at `path`, in file order, converted to `T` (a standard integer
/// type, float or double; see the file comment for the text they are read from).
///
/// A big regular file that is in the page cache and read (not mapped) is cut at line starts
/// into slices that the threads read with `pread(2)` and scan (at most `options.threads`);
/// anything else is read in chunks (pipes and FIFOs too) on the calling thread. The sizes
/// and the "cached" share are detail/policy.hpp's (`number_bytes_per_thread`,
/// `resident_percent`, `scan_read_block`; docs/defaults.md lists their values). Time O(file
/// size); memory: the result, plus one scan_read_block per thread.
/// @returns the numbers, or the error: `errc::invalid_number`, `number_out_of_range`,
///          `wrong_column_count`, `empty_field`, `token_too_long` (with offset, line and
///          column), the errno of open/read naming the path, EIO if the file shrank while
///          it was read, `errc::invalid_argument` for options that contradict each other
///          (before anything is read), or a bad `FASTREAD_THREADS`.
template <class T>
result<std::vector<T>> try_numbers(const std::filesystem::path& path, number_options options = {}) {
    detail::check_number_type<T>();
    return detail::try_numbers_file<std::vector<T>>(path, options);
}

/// The numbers of the file at `path` (see try_numbers).
/// @throws parse_error with offset(), line() and column() for text that is not numbers of
///         `T` as the options describe; std::system_error naming the path if it cannot be
///         opened or read; std::invalid_argument for contradictory options.
template <class T>
std::vector<T> numbers(const std::filesystem::path& path, number_options options = {}) {
    return detail::value_or_throw(try_numbers<T>(path, options));
}

/// The numbers of `source` (any byte_source: a stdio_source on stdin, a read_source on a
/// pipe, an mmap_source...), read chunk by chunk on the calling thread; `io` and `threads`
/// are not used. Errors as for try_numbers(path), without a path; a reporting source's
/// read error.
template <class T, byte_source Source>
result<std::vector<T>> try_numbers(Source& source, number_options options = {}) {
    detail::check_number_type<T>();
    return detail::try_numbers_source<std::vector<T>>(source, options);
}

/// The numbers of `source` (see try_numbers(source)).
/// @throws parse_error (offset, line, column), what the source throws.
template <class T, byte_source Source>
std::vector<T> numbers(Source& source, number_options options = {}) {
    return detail::value_or_throw(try_numbers<T>(source, options));
}

/// The columns of the file at `path`: a tuple of one vector per column, the c-th number of
/// each line converted to the c-th type, e.g. `columns<double, double, double>` for a
/// point cloud, `columns<std::uint32_t, std::uint32_t>` for an edge list. Every line that
/// has a number has `sizeof...(T)` of them (`options.columns` must be 0 or that). Read as
/// try_numbers(path) reads; the vectors have one size.
template <class... T>
result<std::tuple<std::vector<T>...>> try_columns(const std::filesystem::path& path,
                                                  number_options options = {}) {
    static_assert(sizeof...(T) > 0, "fastread::columns needs at least one column type");
    (detail::check_number_type<T>(), ...);
    return detail::try_numbers_file<std::tuple<std::vector<T>...>>(path, options);
}

/// The columns of the file at `path` (see try_columns).
/// @throws parse_error (offset, line, column) for a line with another count of numbers or
///         a token that is not a number of its column's type; std::system_error naming the
///         path; std::invalid_argument for contradictory options.
template <class... T>
std::tuple<std::vector<T>...> columns(const std::filesystem::path& path,
                                      number_options options = {}) {
    return detail::value_or_throw(try_columns<T...>(path, options));
}

/// The columns of `source` (any byte_source), read chunk by chunk on the calling thread.
template <class... T, byte_source Source>
result<std::tuple<std::vector<T>...>> try_columns(Source& source, number_options options = {}) {
    static_assert(sizeof...(T) > 0, "fastread::columns needs at least one column type");
    (detail::check_number_type<T>(), ...);
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
               detail::value_or_throw(detail::make_number_syntax(
                   options.separators, options.comment, options.skip_lines, options.columns))))) {}

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
        explicit state(const detail::number_syntax& s) : syntax(s) {}
    };

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
                    s.pending = detail::number_error(s.stream.failure(), {});
                }
                continue;
            }
            if (!s.stream.feed(chunk.data(), chunk.data() + chunk.size(), offset_)) {
                done_ = true;
                s.pending = detail::number_error(s.stream.failure(), {});
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
    result<detail::number_syntax> syntax = detail::make_number_syntax(
        options.separators, options.comment, options.skip_lines, options.columns);
    if (!syntax) {
        return syntax.error();
    }
    return number_range<T>(source, *syntax);
}

} // namespace fastread

#endif // FASTREAD_NUMBERS_HPP
