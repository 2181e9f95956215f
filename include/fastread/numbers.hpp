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
/// - `columns` (and columns<T...>): every line that has a number has exactly that many
///   (or fewer, filled, with `ragged_fill`).
/// - A UTF-8 byte order mark (EF BB BF) at the start of the input is skipped.
///
/// Errors are `parse_error`s (the `try_` forms' `error`) with the byte offset, the line
/// (1-based, counting every line) and the column (the token's 1-based index on its line):
/// `cloud.xyz: byte 1843: line 57, column 2: "1.2.3" is not a number`.

#include <cstddef>
#include <filesystem>
#include <optional>
#include <tuple>
#include <utility>
#include <vector>

#include "detail/config.hpp"
#include "io.hpp"
#include "numbers/detail/number_type.hpp"
#include "result.hpp"

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
    /// The most lines with numbers read (0: all): the call stops after that many and reads
    /// no further, e.g. a PLY body's vertex block before its faces (then read the faces with
    /// `skip_lines` = the header's lines + max_rows). A call with max_rows reads on one
    /// thread.
    std::size_t max_rows = 0;
    /// With `columns` (or columns<T...>): a line with fewer numbers than the columns, but at
    /// least one, gets this value in each missing column (converted to the column's type)
    /// instead of an error, e.g. 1.0 for the values of a pattern Matrix Market file. Empty
    /// (the default): such a line is an error. The value must be exact in every integer
    /// column it may fill (std::invalid_argument).
    std::optional<double> ragged_fill{};
    /// The decimal separator of floating-point numbers: '.' (the default) or ',' (European
    /// spreadsheet exports, with `separators = ";"`). With ',' a '.' in a number is an error,
    /// and ',' cannot be a separator (std::invalid_argument).
    char decimal = '.';
    /// Fortran's exponent letters: `D` and `d` read as `E` (`1.0D+03` is 1000), as old
    /// scientific data and NIST's reference files write them. Off by default.
    bool fortran_exponents = false;
    /// Paths only: read (the default, `process_setting`, reads unless `FASTREAD_IO=map`) or map the
    /// file (fastread/io.hpp). A mapped file is scanned on one thread.
    io_mode io = io_mode::process_setting;
    /// Paths only: the most threads the call uses, the calling thread included (1: no
    /// helper thread); 0: the process setting (fastread/threads.hpp). The result is the
    /// same for every setting.
    unsigned threads = 0;
};

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
requires detail::is_number_type<T> result<std::vector<T>>
try_numbers(const std::filesystem::path& path, number_options options = {});

/// The numbers of the file at `path` (see try_numbers).
/// @throws parse_error with offset(), line() and column() for text that is not numbers of
///         `T` as the options describe; std::system_error naming the path if it cannot be
///         opened or read; std::invalid_argument for contradictory options.
template <class T>
std::vector<T> numbers(const std::filesystem::path& path, number_options options = {}) {
    detail::check_number_type<T>();
    return detail::value_or_throw(try_numbers<T>(path, options));
}

/// The columns of the file at `path`: a tuple of one vector per column, the c-th number of
/// each line converted to the c-th type, e.g. `columns<double, double, double>` for a
/// point cloud, `columns<std::uint32_t, std::uint32_t>` for an edge list. Every line that
/// has a number has `sizeof...(T)` of them (`options.columns` must be 0 or that). Read as
/// try_numbers(path) reads; the vectors have one size.
template <class... T>
result<std::tuple<std::vector<T>...>> try_columns(const std::filesystem::path& path,
                                                  number_options options = {});

/// The columns of the file at `path` (see try_columns).
/// @throws parse_error (offset, line, column) for a line with another count of numbers or
///         a token that is not a number of its column's type; std::system_error naming the
///         path; std::invalid_argument for contradictory options.
template <class... T>
std::tuple<std::vector<T>...> columns(const std::filesystem::path& path,
                                      number_options options = {}) {
    static_assert(sizeof...(T) > 0, "fastread::columns needs at least one column type");
    (detail::check_number_type<T>(), ...);
    return detail::value_or_throw(try_columns<T...>(path, options));
}

/// The path forms that fastread::compiled holds (src/fastread.cpp), declared in namespace
/// fastread: `prefix` is `extern` where they are used and empty where they are made. One
/// instantiation per type numbers() reads (every one is_number_type admits).
#define FASTREAD_DETAIL_NUMBERS_OF(prefix, T)                                                      \
    prefix template result<std::vector<T>> try_numbers<T>(const std::filesystem::path&,            \
                                                          number_options);
#define FASTREAD_DETAIL_INTEGER_LOADS(prefix)                                                      \
    FASTREAD_DETAIL_NUMBERS_OF(prefix, signed char)                                                \
    FASTREAD_DETAIL_NUMBERS_OF(prefix, unsigned char)                                              \
    FASTREAD_DETAIL_NUMBERS_OF(prefix, short)                                                      \
    FASTREAD_DETAIL_NUMBERS_OF(prefix, unsigned short)                                             \
    FASTREAD_DETAIL_NUMBERS_OF(prefix, int)                                                        \
    FASTREAD_DETAIL_NUMBERS_OF(prefix, unsigned)                                                   \
    FASTREAD_DETAIL_NUMBERS_OF(prefix, long)                                                       \
    FASTREAD_DETAIL_NUMBERS_OF(prefix, unsigned long)                                              \
    FASTREAD_DETAIL_NUMBERS_OF(prefix, long long)                                                  \
    FASTREAD_DETAIL_NUMBERS_OF(prefix, unsigned long long)
#define FASTREAD_DETAIL_FLOAT_LOADS(prefix)                                                        \
    FASTREAD_DETAIL_NUMBERS_OF(prefix, float)                                                      \
    FASTREAD_DETAIL_NUMBERS_OF(prefix, double)

} // namespace fastread

#if FASTREAD_SEPARATE_COMPILATION
#include "numbers/detail/column_set.hpp"

namespace fastread {

FASTREAD_DETAIL_INTEGER_LOADS(extern)
FASTREAD_DETAIL_FLOAT_LOADS(extern)

namespace detail {
/// columns<T...>(path) of any column types, the compiled core: the columns of the file at
/// `path` into `shape`'s columns (column_set_of<T...>()), converted to each column's type.
/// Errors as try_columns; `options.columns` must be 0 or the column count.
result<column_set> try_columns_file(const std::filesystem::path& path, number_options options,
                                    column_set shape);

template <class... T, std::size_t... I>
std::tuple<std::vector<T>...> columns_from(column_set&& set, std::index_sequence<I...>) {
    return {std::get<std::vector<T>>(std::move(set.columns[I]))...};
}
} // namespace detail

template <class... T>
result<std::tuple<std::vector<T>...>> try_columns(const std::filesystem::path& path,
                                                  number_options options) {
    static_assert(sizeof...(T) > 0, "fastread::columns needs at least one column type");
    (detail::check_number_type<T>(), ...);
    result<detail::column_set> set =
        detail::try_columns_file(path, options, detail::column_set_of<T...>());
    if (!set) {
        return set.error();
    }
    return detail::columns_from<T...>(std::move(*set), std::index_sequence_for<T...>{});
}

} // namespace fastread
#else
#include "numbers/detail/path.hpp"
#include "numbers/source.hpp"
#endif

#endif // FASTREAD_NUMBERS_HPP
