// The public header first: it includes this one at its end, after what this one uses.
#include "../../csv.hpp"
#ifndef FASTREAD_CSV_DETAIL_COUNT_HPP
#define FASTREAD_CSV_DETAIL_COUNT_HPP

/// @file
/// csv::count_rows' job for csv_job_file and csv_job_input: records counted, not converted.
/// A record the structural cursor splits whole (csv_fast_split) is one row; any other goes
/// through the tokenizer and csv_next_record, as every job's does, so blank lines, comments,
/// ragged rows and errors are what csv::rows makes of them.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "columns.hpp"
#include "cursor.hpp"

namespace fastread::detail {

/// The job of csv::count_rows: its output is the rows it read.
class csv_count_job {
  public:
    static constexpr const char* call = "csv::count_rows"; // for its errors
    using output_type = std::uint64_t;

    csv_count_job(const csv::options& o, const csv_dialect& d) : ragged_(o.ragged), d_(d) {}

    fastread::error resolve(const csv_head& head, const std::string&) {
        head_ = head;
        return {};
    }
    const csv_head& head() const noexcept { return head_; }

    /// What csv_job_slices asks of a job besides run (csv_columns_job's): nothing to reserve;
    /// the counts of the slices added.
    void reserve(output_type&, std::size_t) const noexcept {}
    void append(output_type& to, output_type&& from) const noexcept { to += from; }
    static constexpr std::size_t join_units() noexcept { return 1; }
    void join(output_type& to, const std::vector<output_type*>& rest, std::size_t) const noexcept {
        for (const output_type* from : rest) {
            to += *from;
        }
    }

    /// Counts the records of `r` in `out` (the rows this run read) until the end, an error
    /// or (with `slice_end`) a record that runs past the slice's end: see
    /// csv_columns_job::run.
    csv_stop run(csv_reader& r, output_type& out, std::uint64_t& rows, std::size_t& fields,
                 bool slice_end, std::uint64_t = 0, bool = false) const {
        csv_stop stop;
        const std::uint64_t first = rows;
        std::vector<csv_raw_field> raw;
        const bool fast = !d_.trim;
        for (;;) {
            if (fast && fields != 0 &&
                r.next_fast(
                    [&](const char* p, const char* end, csv_cursor& cursor, std::uint64_t& lines) {
                        return csv_fast_split(p, end, cursor, lines, fields, d_, raw);
                    })) {
                ++rows;
                continue;
            }
            const csv_next next =
                csv_next_record(r, stop, rows, fields, slice_end, ragged_, !head_.names.empty(), 0);
            if (next == csv_next::stop) {
                out = rows - first;
                return stop;
            }
            if (next == csv_next::record) {
                ++rows;
            }
        }
    }

  private:
    csv::ragged_rows ragged_;
    csv_dialect d_;
    csv_head head_;
};

} // namespace fastread::detail

#endif // FASTREAD_CSV_DETAIL_COUNT_HPP
