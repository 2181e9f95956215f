// The public header first: it includes this one after the types this one uses.
#include "../read.hpp"
#ifndef FASTREAD_CSV_DETAIL_TABLE_HPP
#define FASTREAD_CSV_DETAIL_TABLE_HPP

/// @file
/// csv::read's steps (declared in fastread::csv, included by csv/read.hpp): a job of the
/// slices (csv_job_file, csv_job_input) whose columns have a type found while they are read.
/// Each column of a part (a slice, or the whole input) starts at the sniffed type (or none),
/// converts each value to it, and widens where one does not fit: int64 to double and date to
/// timestamp by converting the values it holds (exactly: an int64 beyond 2^53 makes the
/// column text instead), anything else to text, which only a second reading of that column
/// gives (its values so far are dropped, the column marked `pending`). The parts are joined
/// by the same rule, so the types and values do not depend on where the slices were cut.
/// Records the structural cursor splits whole (csv_fast_split) are converted in batches of
/// 256, a column at a time (the column's kind switched on once a batch, not once a value);
/// the others, one at a time as the tokenizer reads them.

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "table_column.hpp"

namespace fastread::detail {

/// A part's columns (one per column read).
struct csv_table_part {
    std::vector<csv_part_column> columns;
};

/// What a column of csv::read is read as: the field it comes from, whether its type is
/// fixed (else inferred) and the type it starts at.
struct csv_table_key {
    std::size_t field = 0;
    csv_kind start = csv_kind::none;
    bool fixed = false;
};

/// csv::read's job for csv_job_file and csv_job_input: the records' fields `keys` into
/// the columns of a csv_table_part.
class csv_table_job {
  public:
    static constexpr const char* call = "csv::read"; // for its errors
    using output_type = csv_table_part;

    /// `keys` resolved by field index; `names`: the columns' names, for errors.
    csv_table_job(const csv::options& o, const csv_dialect& d, std::vector<csv_table_key> keys)
        : missing_(o.missing), keys_(std::move(keys)), ragged_(o.ragged), d_(d) {
        for (std::size_t k = 0; k < keys_.size(); ++k) {
            widest_ = std::max(widest_, keys_[k].field + 1);
            identity_ = identity_ && keys_[k].field == k;
        }
        // A field of the buffer ends before a delimiter, a line end, a quote or a space:
        // bytes that end any number, unless the dialect's are number bytes too.
        wide_numbers_ = !csv_number_byte(d.delimiter) && !csv_number_byte(d.quote);
    }

    fastread::error resolve(const csv_head& head, const std::string&) {
        head_ = head;
        return {};
    }
    const csv_head& head() const noexcept { return head_; }

    /// Room for `rows` in each column of `out` (made here, at their start types).
    void reserve(csv_table_part& out, std::size_t rows) const {
        make_columns(out);
        for (csv_part_column& c : out.columns) {
            c.reserve(rows);
        }
    }
    void append(csv_table_part& to, csv_table_part&& from) const {
        if (to.columns.empty()) {
            to = std::move(from);
            return;
        }
        for (std::size_t k = 0; k < to.columns.size() && k < from.columns.size(); ++k) {
            to.columns[k].append(std::move(from.columns[k]));
        }
    }
    std::size_t join_units() const noexcept { return keys_.size(); }
    void join(csv_table_part& to, const std::vector<csv_table_part*>& rest, std::size_t k) const {
        for (csv_table_part* from : rest) {
            to.columns[k].append(std::move(from->columns[k]));
        }
    }

    csv_stop run(csv_reader& r, csv_table_part& out, std::uint64_t& rows, std::size_t& fields,
                 bool slice_end, std::uint64_t input_bytes = 0, bool = false) const {
        csv_stop stop;
        // After 1024 rows, room for as many as the bytes left promise (10 % more).
        const std::uint64_t start = r.position();
        const std::uint64_t reserve_at = input_bytes != 0 ? rows + 1024 : UINT64_MAX;
        make_columns(out);
        std::vector<csv_raw_field> raw;
        std::string scratch; // a field without its doubled quotes
        const bool fast = !d_.trim;
        // The fast path's records go to a batch (row by row, each row's fields by key: views
        // into the reader's buffer; split straight into it where the keys are every field in
        // order), converted a column at a time when it is full and before the tokenizer
        // reads on (its buffer may move then).
        const std::size_t width = keys_.size();
        std::vector<csv_raw_field> batch(batch_rows * width);
        std::vector<const char*> batch_record(batch_rows);
        std::vector<std::uint64_t> batch_offset(batch_rows), batch_line(batch_rows);
        std::size_t n = 0;
        const char* limit = nullptr; // the end of the reader's buffer the batch is in
        const auto flush = [&]() {
            const bool ok =
                convert_batch(out, batch, n, wide_numbers_ ? limit : nullptr, stop, scratch);
            if (!ok) {
                const std::size_t i = static_cast<std::size_t>(stop.at.row);
                const csv_raw_field& f = batch[i * width + stop.at.column];
                const auto at = static_cast<std::uint64_t>(f.raw.data() - batch_record[i]) -
                                (f.quoted ? 1 : 0); // the field's first byte
                rows = rows - n + i + 1;
                stop.at = {batch_offset[i] + at, batch_line[i], rows, keys_[stop.at.column].field};
            }
            n = 0;
            return ok;
        };
        for (;;) {
            if (rows == reserve_at) [[unlikely]] {
                reserve(r, out, rows, start, input_bytes);
            }
            const char* record = nullptr;
            if (fast && fields != 0 && fields >= widest_ &&
                r.next_fast(
                    [&](const char* p, const char* end, csv_cursor& cursor, std::uint64_t& lines) {
                        record = p;
                        limit = end;
                        if (identity_ && fields == width) {
                            return csv_fast_split(p, end, cursor, lines, fields, d_,
                                                  batch.data() + n * width);
                        }
                        return csv_fast_split(p, end, cursor, lines, fields, d_, raw);
                    })) {
                ++rows;
                if (!identity_ || fields != width) {
                    for (std::size_t k = 0; k < width; ++k) {
                        batch[n * width + k] = raw[keys_[k].field];
                    }
                }
                batch_record[n] = record;
                batch_offset[n] = r.offset();
                batch_line[n] = r.line();
                if (++n == batch_rows && !flush()) [[unlikely]] {
                    return stop;
                }
                continue;
            }
            if (n != 0 && !flush()) {
                return stop;
            }
            // No header: a first row narrower than the sniffed columns is not refused here (its
            // fields beyond are missing); the rows' field counts are checked against it.
            const csv_next next =
                csv_next_record(r, stop, rows, fields, slice_end, ragged_, !head_.names.empty(), 0);
            if (next == csv_next::stop) {
                return stop;
            }
            if (next == csv_next::skip) {
                continue;
            }
            ++rows;
            const csv_fields& f = r.fields();
            for (std::size_t k = 0; k < keys_.size(); ++k) {
                const csv_table_key& key = keys_[k];
                const bool there = key.field < f.size();
                if (!put(out.columns[k], key, there ? f[key.field] : std::string_view(), stop,
                         scratch, !there)) {
                    stop.at = {r.field_offset(key.field), r.line(), rows, key.field};
                    return stop;
                }
            }
        }
    }

  private:
    /// The rows of a batch of the fast path.
    static constexpr std::size_t batch_rows = 256;

    /// The first `n` rows of `batch` (by row, then key) into the columns of `out`, a column
    /// at a time (csv_part_column::put_run; an inferred column widened where a value does
    /// not fit, a fixed one stopped). False at a value that does not convert to a fixed
    /// type: the first in row order, then key order, its stop's code and reason set, and
    /// at.row and at.column its row in the batch and its key (the caller places it).
    bool convert_batch(csv_table_part& out, const std::vector<csv_raw_field>& batch, std::size_t n,
                       const char* limit, csv_stop& stop, std::string& scratch) const {
        std::size_t fail = n;
        for (std::size_t k = 0; k < keys_.size(); ++k) {
            csv_part_column& c = out.columns[k];
            const std::size_t stride = keys_.size();
            const csv_raw_field* v = batch.data() + k;
            const bool fixed = keys_[k].fixed;
            for (std::size_t i = 0; i < n;) {
                errc code{};
                i += c.put_run(v + i * stride, n - i, stride, missing_, d_.quote, limit, fixed,
                               code, scratch);
                if (i == n) {
                    break;
                }
                const csv_raw_field& at = v[i * stride];
                const std::string_view f =
                    at.doubled ? csv_undoubled(at.raw, d_.quote, scratch) : at.raw;
                if (fixed) {
                    if (i < fail) {
                        fail = i;
                        stop.code = code;
                        stop.reason = csv_shown(f) + " is not " + type_name(keys_[k].start);
                        stop.at.row = i;
                        stop.at.column = k;
                    }
                    break;
                }
                c.widen_for(f, missing_);
                ++i;
            }
        }
        return fail == n;
    }

    /// The columns of `out`, each at its start type, unless made already.
    void make_columns(csv_table_part& out) const {
        if (out.columns.size() != keys_.size()) {
            out.columns.assign(keys_.size(), {});
            for (std::size_t k = 0; k < keys_.size(); ++k) {
                out.columns[k].kind = keys_[k].start;
            }
        }
    }

    /// Field `field` of a row (the tokenizer's: no doubled quotes left) into column `c`
    /// (read as `key` says, by put_run); false, with stop's code and reason, for a value
    /// that does not convert to a fixed type.
    bool put(csv_part_column& c, const csv_table_key& key, std::string_view field, csv_stop& stop,
             std::string& scratch, bool absent = false) const {
        if (absent) {
            c.put_missing();
            return true;
        }
        const csv_raw_field one{field};
        errc code{};
        if (c.put_run(&one, 1, 1, missing_, d_.quote, nullptr, key.fixed, code, scratch) == 1) {
            return true;
        }
        if (!key.fixed) {
            c.widen_for(field, missing_);
            return true;
        }
        stop.code = code;
        stop.reason = csv_shown(field) + " is not " + type_name(key.start);
        return false;
    }

    /// After 1024 rows, room in each column for as many as the bytes left promise (10 %
    /// more).
    static void reserve(const csv_reader& r, csv_table_part& out, std::uint64_t rows,
                        std::uint64_t start, std::uint64_t input_bytes) {
        const std::uint64_t read = std::max<std::uint64_t>(r.position() - start, 1);
        const double expect = static_cast<double>(rows) * static_cast<double>(input_bytes) /
                              static_cast<double>(read) * 1.1;
        if (expect < static_cast<double>(SIZE_MAX / 64)) {
            for (csv_part_column& c : out.columns) {
                c.reserve(static_cast<std::size_t>(expect) + 64);
            }
        }
    }

  private:
    static std::string type_name(csv_kind k) {
        switch (k) {
        case csv_kind::boolean:
            return "a bool";
        case csv_kind::int64:
            return "a " + csv_type_name<std::int64_t>();
        case csv_kind::float64:
            return "a double";
        case csv_kind::date:
            return "a " + csv_type_name<std::chrono::sys_days>();
        case csv_kind::timestamp:
            return "a " + csv_type_name<csv_timestamp>();
        case csv_kind::none:
        case csv_kind::text:
            break;
        }
        return "text";
    }

    csv_missing missing_;
    std::vector<csv_table_key> keys_;
    csv::ragged_rows ragged_;
    csv_dialect d_;
    csv_head head_;
    std::size_t widest_ = 0;
    bool wide_numbers_ = false; // numbers read with the buffer's end as their limit
    bool identity_ = true;      // the keys are fields 0, 1, ... in order
};

} // namespace fastread::detail

#endif // FASTREAD_CSV_DETAIL_TABLE_HPP
