#include "detail/cxx20.hpp"
#if FASTREAD_CXX20 && !defined(FASTREAD_CSV_HPP)
#define FASTREAD_CSV_HPP

/// @file
/// `fastread::csv`: delimited text (CSV, TSV, any one-byte delimiter) as rows of field
/// views or as typed columns chosen by header name or index, from a file, a pipe or any
/// byte source.
///
/// ```
/// auto [fare, tip, vendor] = fastread::csv::columns<double, std::optional<double>, std::string>(
///     "trips.csv", {"fare_amount", "tip_amount", "vendor_id"});
/// for (const auto& row : fastread::csv::rows("reviews.csv")) { std::string_view t = row["text"]; }
/// ```
///
/// The rules (RFC 4180, read as Python's `csv` module reads it by default, its reader being
/// the reference of every quoting case; the same for every entry point, whole, in chunks or
/// in slices on threads):
/// - A record (row) ends at LF, CR LF or a lone CR outside quotes, or at the end of the
///   input. Blank lines are skipped (as pandas does; Python's `csv` gives them as rows of no
///   field), and so are lines that start with `comment`.
/// - Fields are separated by `delimiter`. A field that starts with `quote` is quoted: it runs
///   to the next quote that is not doubled; `""` inside it is one `"`; delimiters and line
///   ends inside it belong to it. With `escape` set, the byte after it is taken as text, in
///   quoted and unquoted fields.
/// - A quote inside an unquoted field (`ab"c`) is text; text after a closing quote
///   (`"ab"c`) is appended to the field (`abc`), as Python reads them; with `strict` both are
///   errors. A quoted field still open at the end of the input is an error naming the line
///   where it opened.
/// - A UTF-8 byte order mark (EF BB BF) at the start of the input is skipped, so it is not
///   part of the first header name (pandas#4793).
/// - With `header` (the default), the first record holds the column names. Every record has
///   as many fields as the header (or, without one, as the first record): `ragged` says what
///   else happens.
///
/// Errors are `parse_error`s (the `try_` forms' `error`) with the byte offset, the physical
/// line (1-based) and the column (1-based), and a message that names the row (1-based after
/// the header) and the column's name: `trips.csv: byte 1843: line 57, row 56, column 2
/// ("fare_amount"): "1.2.3" is not a number of type double`.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <vector>

#include "io.hpp"
#include "result.hpp"
#include "source/byte_source.hpp"

namespace fastread::csv {

/// What happens to a record with another number of fields than the header's.
enum class ragged_rows {
    error, ///< a parse_error naming the row (the default)
    fill,  ///< a short record gets missing (empty) fields; a long one is still an error
    skip,  ///< the record is skipped and counted (rows::skipped())
    keep,  ///< no check: each row as it is (csv::columns: a field a short row lacks is missing)
};

/// How delimited text is read.
struct options {
    /// The byte between fields: ',' (CSV), '\t' (TSV), ';', '|'... Not a line end or a quote.
    char delimiter = ',';
    /// The byte that quotes a field (RFC 4180: '"'); 0: no quoting.
    char quote = '"';
    /// 0 (the default): a quote inside a quoted field is written twice, as RFC 4180 says.
    /// '\\' (or any byte): that byte makes the next one text, quoted field or not (doubled
    /// quotes still read as one).
    char escape = 0;
    /// Whether the first record holds the column names.
    bool header = true;
    /// Physical lines skipped at the start, whatever they hold (before the header).
    std::size_t skip_lines = 0;
    /// A byte that, at the start of a line, makes it a comment line (skipped); 0: none.
    char comment = 0;
    /// The field values that mean "no value" in a typed column (compared with the field's
    /// text after unquoting): by default the empty field and pandas' most common spellings.
    std::vector<std::string> missing = {"", "NA", "N/A", "NaN", "null", "NULL"};
    /// Whether spaces (and tabs, unless the delimiter is a tab) around fields are dropped.
    bool trim = false;
    /// A record with another field count than the header's: error, fill or skip.
    ragged_rows ragged = ragged_rows::error;
    /// Whether a quote inside an unquoted field, and text after a closing quote, are errors
    /// (Python's `strict`) instead of text.
    bool strict = false;
    /// The longest field, in bytes (`errc::over_limit` beyond it): what bounds memory on
    /// hostile input (a quote never closed).
    std::size_t max_field_bytes = std::size_t{64} << 20;
    /// The most fields in one record (`errc::over_limit` beyond it).
    std::size_t max_fields = std::size_t{1} << 20;
    /// Paths only: read (the default: `process_setting` reads unless `FASTREAD_IO=map`) or
    /// map the file (fastread/io.hpp). A mapped file is read on one thread.
    io_mode io = io_mode::process_setting;
    /// Paths only (csv::columns): the most threads the call uses, the calling thread
    /// included; 0: the process setting (fastread/threads.hpp). The result, and any error,
    /// is the same for every setting.
    unsigned threads = 0;
};

/// A column asked for: its header name or its 0-based index.
class column_key {
  public:
    ///@{
    /// The column named `name` in the header.
    column_key(std::string_view name) : name_(name), by_name_(true) {}
    column_key(const char* name) : name_(name), by_name_(true) {}
    column_key(const std::string& name) : name_(name), by_name_(true) {}
    ///@}
    /// The column at 0-based `index` (negative: std::invalid_argument when read).
    template <class I>
    requires std::is_integral_v<I> column_key(I index)
        : index_(index < 0 ? SIZE_MAX : static_cast<std::size_t>(index)) {}

    /// Whether the column is chosen by its name (else by its index).
    bool by_name() const noexcept { return by_name_; }
    /// The name (empty when chosen by index).
    const std::string& name() const noexcept { return name_; }
    /// The index (0 when chosen by name; SIZE_MAX for a negative one).
    std::size_t index() const noexcept { return index_; }

  private:
    std::string name_;
    std::size_t index_ = 0;
    bool by_name_ = false;
};

} // namespace fastread::csv

#include "csv/detail/columns.hpp"
#include "csv/detail/rows.hpp"

#endif // FASTREAD_CSV_HPP
