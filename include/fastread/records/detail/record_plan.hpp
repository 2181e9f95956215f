#ifndef FASTREAD_RECORDS_DETAIL_RECORD_PLAN_HPP
#define FASTREAD_RECORDS_DETAIL_RECORD_PLAN_HPP

// Planning a batch of record accesses: the order in which records are visited (sorted by
// position, stably, or the caller's order) and the blocks that cover them (records that
// share a page, or lie close enough, read with one request).

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "../../result.hpp"

namespace fastread::detail {

/// One visit: the record's index in the file and its position in the caller's batch.
struct record_ref {
    std::uint64_t index;
    std::uint64_t pos;
};

/// The batch as record_refs, in file order when `sort` (stable: a repeated index keeps the
/// caller's order among its visits) or else in the caller's order. LSD radix sort on the
/// bytes the largest index needs: O(n) per byte, 8 bits at a time.
inline std::vector<record_ref> visit_order(std::span<const std::uint64_t> indices, bool sort) {
    const std::size_t n = indices.size();
    std::vector<record_ref> a(n);
    std::uint64_t largest = 0;
    for (std::size_t i = 0; i < n; ++i) {
        a[i] = record_ref{indices[i], i};
        largest = std::max(largest, indices[i]);
    }
    if (!sort || n < 2) {
        return a;
    }
    if (n < 256) {
        std::stable_sort(a.begin(), a.end(), [](const record_ref& x, const record_ref& y) {
            return x.index < y.index;
        });
        return a;
    }
    const int bytes = (std::bit_width(largest) + 7) / 8;
    std::vector<record_ref> b(n);
    for (int byte = 0; byte < bytes; ++byte) {
        const int shift = 8 * byte;
        std::array<std::size_t, 257> start{};
        for (const record_ref& r : a) {
            ++start[((r.index >> shift) & 0xff) + 1];
        }
        if (start[((a[0].index >> shift) & 0xff) + 1] == n) {
            continue; // every index has this byte in common
        }
        for (std::size_t d = 1; d < start.size(); ++d) {
            start[d] += start[d - 1];
        }
        for (const record_ref& r : a) {
            b[start[(r.index >> shift) & 0xff]++] = r;
        }
        a.swap(b);
    }
    return a;
}

/// One read request: bytes [offset, offset + length) of the file cover the records
/// refs[first, last).
struct block_request {
    std::uint64_t offset;
    std::size_t length;
    std::size_t first, last;
    bool operator==(const block_request&) const = default;
};

/// The longest request's length in bytes (0 for none).
inline std::size_t largest_request(const std::vector<block_request>& requests) noexcept {
    std::size_t most = 0;
    for (const block_request& r : requests) {
        most = std::max(most, r.length);
    }
    return most;
}

/// How to group visits into requests.
struct block_rules {
    std::size_t align = 4096;       ///< requests start and end on multiples of this (pages)
    std::size_t merge_gap = 0;      ///< join a record this many bytes or less past the block
    std::size_t max_length = 65536; ///< no request longer than this (unless one record is)
};

/// Groups consecutive visits into requests: a visit joins the current request when its
/// record starts at or after the request's offset, no further than `merge_gap` bytes
/// past its end, and the request stays within `max_length`; otherwise it starts a new one.
/// Requests never run past `file_size`. Only the visits refs[from, to) when given (the
/// requests' first and last still index `refs`). O(to - from).
inline std::vector<block_request> plan_blocks(const std::vector<record_ref>& refs,
                                              std::size_t record_size, std::uint64_t file_size,
                                              const block_rules& rules, std::size_t from = 0,
                                              std::size_t to = SIZE_MAX) {
    std::vector<block_request> out;
    const std::uint64_t align = rules.align;
    auto up = [&](std::uint64_t x) { return std::min((x + align - 1) / align * align, file_size); };
    std::uint64_t begin = 0, end = 0;
    for (std::size_t k = from; k < std::min(to, refs.size()); ++k) {
        const std::uint64_t rb = refs[k].index * record_size;
        const std::uint64_t re = rb + record_size;
        if (!out.empty() && rb >= begin && rb <= end + rules.merge_gap &&
            up(re) - begin <= std::max<std::uint64_t>(rules.max_length, end - begin)) {
            end = std::max(end, up(re));
            out.back().length = static_cast<std::size_t>(end - begin);
            out.back().last = k + 1;
            continue;
        }
        begin = rb / align * align;
        end = up(re);
        out.push_back(block_request{begin, static_cast<std::size_t>(end - begin), k, k + 1});
    }
    return out;
}

/// The error (errc::out_of_range) naming the first index at or past `count` (records in
/// the file), or none.
inline error indices_problem(std::span<const std::uint64_t> indices, std::uint64_t count,
                             const std::filesystem::path& path) {
    for (std::size_t i = 0; i < indices.size(); ++i) {
        if (indices[i] >= count) {
            return error(make_error_code(errc::out_of_range),
                         path.string() + ": record index " + std::to_string(indices[i]) +
                             " (at position " + std::to_string(i) +
                             " of the batch) is out of range: the file holds " +
                             std::to_string(count) + " whole records",
                         path.string());
        }
    }
    return {};
}

/// Throws std::out_of_range naming the first index at or past `count` (records in the
/// file), before anything is read or written.
inline void check_indices(std::span<const std::uint64_t> indices, std::uint64_t count,
                          const std::filesystem::path& path) {
    throw_if(indices_problem(indices, count, path));
}

} // namespace fastread::detail

#endif // FASTREAD_RECORDS_DETAIL_RECORD_PLAN_HPP
