// The public header first: it includes this one at its end, after what this one uses.
#include "../../csv.hpp"
#ifndef FASTREAD_CSV_DETAIL_SLICES_HPP
#define FASTREAD_CSV_DETAIL_SLICES_HPP

/// @file
/// csv::columns(path): the file read once through the file layer, in slices on threads when
/// it is big, regular and in the page cache (and read, not mapped).
///
/// Exact by quote parity: the body (after the header) is cut into equal parts; a first pass
/// over each part (on its thread) counts its quotes and finds its first LF after an even
/// and after an odd number of them (the quote mask's prefix XOR per 64-byte block, carried
/// from block to block). The parities of the parts before it say whether a part starts
/// inside quotes, so each cut is the first LF outside quotes: a record start, not a guess,
/// for any text where quotes only open and close fields (RFC 4180). The second pass reads
/// each slice with the tokenizer; a slice whose last record runs past its end (the parity
/// was wrong: a quote inside an unquoted field, a quote in a comment line) is read on from
/// that record to the end of the file on one thread, so the result is the sequential one.
///
/// That check alone makes any cut exact (a slice read from a record start ends its last
/// record at the next cut, or the rest is read on): where the file's head holds no quote
/// byte, the first pass is skipped and each cut is the first LF after its part's start,
/// checked the same way. A file whose quotes start after its head may then be read on one
/// thread from a wrong cut; it is never read wrong.

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "../../detail/input_plan.hpp"
#include "../../detail/parallel.hpp"
#include "../../detail/policy.hpp"
#include "../../detail/thread_limit.hpp"
#include "../../source/detail/file_source.hpp"
#include "../../source/detail/file_stream.hpp"
#include "columns.hpp"

namespace fastread::detail {

/// csv_input over [from, to) of a file, read with pread(2) through slice_reads (slice `t`).
class csv_slice_input final : public csv_input {
  public:
    csv_slice_input(slice_reads& reads, unsigned t, std::uint64_t from, std::uint64_t to)
        : reads_(&reads), t_(t), pos_(from), to_(to) {
        reads.start(t, from);
    }
    std::size_t read(char* dst, std::size_t n) override {
        const auto want = static_cast<std::size_t>(std::min<std::uint64_t>(n, to_ - pos_));
        if (want == 0 || !ok_) {
            return 0;
        }
        ok_ = reads_->read(t_, dst, want, pos_);
        const auto got = static_cast<std::size_t>(reads_->reached(t_) - pos_);
        pos_ += got;
        return got;
    }

  private:
    slice_reads* reads_;
    unsigned t_;
    std::uint64_t pos_, to_;
    bool ok_ = true;
};

/// The quote parity of a part of the file and its first LF after an even and after an odd
/// number of quotes (UINT64_MAX: none).
struct csv_part_parity {
    bool odd = false;
    std::uint64_t lf_even = 0; ///< LFs outside quotes, if the part starts outside them
    std::uint64_t lf_odd = 0;  ///< LFs outside quotes, if it starts inside
    std::uint64_t first_even = UINT64_MAX;
    std::uint64_t first_odd = UINT64_MAX;
};

/// Bit i: the parity of the set bits of `m` at positions <= i (prefix XOR).
inline std::uint64_t csv_prefix_xor(std::uint64_t m) noexcept {
    m ^= m << 1;
    m ^= m << 2;
    m ^= m << 4;
    m ^= m << 8;
    m ^= m << 16;
    m ^= m << 32;
    return m;
}

/// The parity pass's two steps on a 64-bit mask, portable: the prefix XOR by shifts, the
/// count by std::popcount.
struct csv_parity_ops {
    static std::uint64_t prefix_xor(std::uint64_t m) noexcept { return csv_prefix_xor(m); }
    static int count(std::uint64_t m) noexcept { return std::popcount(m); }
};

#if FASTREAD_SCAN_X86
/// The same with the instructions for them: the prefix XOR as a carry-less multiply by all
/// ones (PCLMULQDQ: bit i of the product is the XOR of bits 0..i), the count as POPCNT.
struct csv_parity_ops_clmul {
    using v2di = long long __attribute__((vector_size(16)));
    [[gnu::target("pclmul,popcnt")]] static std::uint64_t prefix_xor(std::uint64_t m) noexcept {
        const v2di a = {static_cast<long long>(m), 0}, ones = {-1, -1};
        return static_cast<std::uint64_t>(__builtin_ia32_pclmulqdq128(a, ones, 0)[0]);
    }
    [[gnu::target("pclmul,popcnt")]] static int count(std::uint64_t m) noexcept {
        return __builtin_popcountll(m);
    }
};
#endif

/// Adds [p, end) (at input offset `at`) to `pp`, with the steps of Ops.
template <class Ops>
void csv_parity_add_with(csv_part_parity& pp, const char* p, const char* end, std::uint64_t at,
                         char quote, byte_set_masks_fn masks) {
    const byte_set qs = byte_set::of(quote != 0 ? quote : '\n', 0, 0, 0, 0);
    const byte_set ns = byte_set::of('\n', 0, 0, 0, 0);
    std::uint64_t qm[64], nm[64];
    while (p != end) {
        const auto bytes = static_cast<std::size_t>(end - p);
        const std::size_t blocks = std::min<std::size_t>(bytes / 64, 64);
        std::size_t count = blocks;
        if (blocks != 0) {
            masks(p, blocks, qs, qm);
            masks(p, blocks, ns, nm);
        } else {
            qm[0] = byte_set_mask_tail(p, bytes, qs);
            nm[0] = byte_set_mask_tail(p, bytes, ns);
            count = 1;
        }
        for (std::size_t b = 0; b < count; ++b) {
            const std::uint64_t q = quote != 0 ? qm[b] : 0;
            // Bit i: inside quotes at byte i, had the part started outside them; bit 63 of
            // the prefix XOR is the parity of the block's quotes.
            const std::uint64_t prefix = Ops::prefix_xor(q);
            const std::uint64_t inside = prefix ^ (pp.odd ? ~std::uint64_t{0} : 0);
            const std::uint64_t even = nm[b] & ~inside, odd = nm[b] & inside;
            if (pp.first_even == UINT64_MAX || pp.first_odd == UINT64_MAX) [[unlikely]] {
                const std::uint64_t base = at + 64 * b;
                if (pp.first_even == UINT64_MAX && even != 0) {
                    pp.first_even = base + static_cast<std::uint64_t>(std::countr_zero(even));
                }
                if (pp.first_odd == UINT64_MAX && odd != 0) {
                    pp.first_odd = base + static_cast<std::uint64_t>(std::countr_zero(odd));
                }
            }
            pp.lf_even += static_cast<std::uint64_t>(Ops::count(even));
            pp.lf_odd += static_cast<std::uint64_t>(Ops::count(odd));
            pp.odd ^= (prefix >> 63) != 0;
        }
        const std::size_t took = blocks != 0 ? 64 * blocks : bytes;
        p += took;
        at += took;
    }
}

using csv_parity_add_fn = void (*)(csv_part_parity&, const char*, const char*, std::uint64_t, char,
                                   byte_set_masks_fn);

inline void csv_parity_add(csv_part_parity& pp, const char* p, const char* end, std::uint64_t at,
                           char quote, byte_set_masks_fn masks) {
    csv_parity_add_with<csv_parity_ops>(pp, p, end, at, quote, masks);
}

#if FASTREAD_SCAN_X86
[[gnu::target("pclmul,popcnt"), gnu::flatten]] inline void
csv_parity_add_clmul(csv_part_parity& pp, const char* p, const char* end, std::uint64_t at,
                     char quote, byte_set_masks_fn masks) {
    csv_parity_add_with<csv_parity_ops_clmul>(pp, p, end, at, quote, masks);
}
#endif

/// The parity pass for `level`: with PCLMULQDQ and POPCNT at the AVX2 and AVX-512 levels
/// (where the CPU has them), else portable; the same results.
inline csv_parity_add_fn csv_parity_add_for(scan::simd_level level) noexcept {
#if FASTREAD_SCAN_X86
    const scan::simd_level l = cap_level(level);
    if ((l == scan::simd_level::avx2 || l == scan::simd_level::avx512) &&
        __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("popcnt")) {
        return csv_parity_add_clmul;
    }
#else
    (void)level;
#endif
    return csv_parity_add;
}

/// The records of `file` read by `job` (csv_columns_job's members: run, head, reserve,
/// append, join_units, join) in `threads` slices after `body` (the offset after the header,
/// whose reading left `lines_before` lines behind); nothing when no cut is found. `guess`:
/// cut at the first LF after each part's start, without the parity pass.
template <class Job>
std::optional<result<typename Job::output_type>>
csv_job_slices(input_file& file, unsigned threads, std::uint64_t body, std::uint64_t lines_before,
               const csv_dialect& d, const Job& job, bool guess) {
    using tuple_type = typename Job::output_type;
    const std::uint64_t size = file.size();
    const std::string name = file.path().string();
    const byte_set_masks_fn masks = byte_set_masks_for(scan::active_level());
    const csv_parity_add_fn parity_add = csv_parity_add_for(scan::active_level());

    std::vector<std::uint64_t> part_start(threads + 1);
    for (unsigned t = 0; t <= threads; ++t) {
        part_start[t] = body + (size - body) / threads * t;
    }
    part_start[threads] = size;
    std::vector<std::uint64_t> cuts{body};
    // The LFs outside quotes in each slice (a bound on its records, their room reserved:
    // one more for a last line without LF); empty where the cuts are guessed.
    std::vector<std::uint64_t> records;
    if (guess) {
        // The first LF after each part's start (checked in pass 2: the slice before must
        // end its last record there).
        std::vector<std::uint64_t> first_lf(threads, UINT64_MAX);
        slice_reads scan(file, threads);
        in_slices(threads - 1, threads - 1, [&](unsigned, std::size_t first, std::size_t last) {
            for (std::size_t t = first + 1; t < last + 1; ++t) {
                scan.read_through(static_cast<unsigned>(t), part_start[t], size,
                                  [&](const char* p, const char* end, std::uint64_t at) {
                                      const void* nl = std::memchr(p, '\n', end - p);
                                      if (nl == nullptr) {
                                          return true;
                                      }
                                      first_lf[t] = at - static_cast<std::uint64_t>(end - p) +
                                                    static_cast<std::uint64_t>(
                                                        static_cast<const char*>(nl) - p);
                                      return false;
                                  });
            }
        });
        if (scan.first_read_error()) {
            return std::nullopt; // the stream reports it
        }
        for (unsigned t = 1; t < threads; ++t) {
            if (first_lf[t] != UINT64_MAX && first_lf[t] + 1 < size &&
                first_lf[t] + 1 > cuts.back()) {
                cuts.push_back(first_lf[t] + 1);
            }
        }
    } else {
        // Pass 1: each part's parity and first LFs.
        std::vector<csv_part_parity> parts(threads);
        slice_reads scan(file, threads);
        in_slices(threads, threads, [&](unsigned, std::size_t first, std::size_t last) {
            for (std::size_t t = first; t < last; ++t) {
                scan.read_through(static_cast<unsigned>(t), part_start[t], part_start[t + 1],
                                  [&](const char* p, const char* end, std::uint64_t at) {
                                      parity_add(parts[t], p, end,
                                                 at - static_cast<std::uint64_t>(end - p), d.quote,
                                                 masks);
                                      return true;
                                  });
            }
        });
        if (scan.first_read_error() || scan.furthest(true) == UINT64_MAX) {
            return std::nullopt; // the stream reports it
        }
        // The cuts: each the first LF outside quotes after its part's start.
        records.push_back(1);
        bool odd = false;
        for (unsigned t = 0; t < threads; ++t) {
            const std::uint64_t lfs = odd ? parts[t].lf_odd : parts[t].lf_even;
            if (t > 0) {
                const std::uint64_t nl = odd ? parts[t].first_odd : parts[t].first_even;
                if (nl != UINT64_MAX && nl + 1 < size && nl + 1 > cuts.back()) {
                    cuts.push_back(nl + 1);
                    records.back() += 1;            // this LF ends the slice before
                    records.push_back(lfs - 1 + 1); // and one for a last line without LF
                } else {
                    records.back() += lfs;
                }
            } else {
                records.back() += lfs;
            }
            odd ^= parts[t].odd;
        }
    }
    cuts.push_back(size);
    const auto slices = static_cast<unsigned>(cuts.size() - 1);
    if (slices < 2) {
        return std::nullopt;
    }

    // Pass 2: the slices.
    struct slice {
        tuple_type out;
        std::uint64_t rows = 0;
        std::uint64_t lines = 0;
        csv_stop stop;
    };
    std::vector<slice> parts2(slices);
    std::uint64_t all_records = 0;
    for (const std::uint64_t r : records) {
        all_records += r;
    }
    const bool reserved = !records.empty();
    slice_reads reads(file, slices);
    const std::size_t fields = job.head().fields;
    in_slices(slices, slices, [&](unsigned, std::size_t first, std::size_t last) {
        for (std::size_t t = first; t < last; ++t) {
            slice& s = parts2[t];
            // Slice 0's columns get room for all: the others are appended to them (without
            // the counts of pass 1, as the density of their first 1024 rows promises).
            if (reserved) {
                job.reserve(s.out, static_cast<std::size_t>(t == 0 ? all_records : records[t]));
            }
            csv_slice_input in(reads, static_cast<unsigned>(t), cuts[t], cuts[t + 1]);
            csv_reader r(d, in, cuts[t], false);
            std::size_t f = fields;
            // The bytes whose rows the columns get room for once 1024 are read (text columns
            // by their density): slice 0's columns are joined the others' rows.
            const std::uint64_t bytes = t == 0 ? size - cuts[0] : cuts[t + 1] - cuts[t];
            s.stop = job.run(r, s.out, s.rows, f, t + 1 < slices, bytes, reserved);
            s.lines = r.lines();
        }
    });

    // In file order: the first slice that stops, or that ends past its cut (then the rest
    // is read on from there); else every slice is the sequential read's.
    std::uint64_t rows_before = 0;
    for (unsigned t = 0; t < slices; ++t) {
        slice& s = parts2[t];
        if (reads.read_error(t).code()) {
            return result<tuple_type>(reads.read_error(t));
        }
        if (reads.ended_early(t)) {
            return result<tuple_type>(file_shrank_error(file.path(), UINT64_MAX, reads.reached(t)));
        }
        if (s.stop.code != errc{} || s.stop.read_error) {
            return result<tuple_type>(csv_stop_error(s.stop, rows_before, lines_before, name,
                                                     job.head().names, Job::call));
        }
        if (s.stop.misaligned) {
            // Read on from the record that ran past the cut, to the end, on this thread.
            slice_reads rest(file, 1);
            csv_slice_input in(rest, 0, s.stop.resume, size);
            csv_reader r(d, in, s.stop.resume, false);
            tuple_type tail;
            std::uint64_t rows = s.rows;
            std::size_t f = fields;
            const csv_stop stop = job.run(r, tail, rows, f, false);
            if (rest.read_error(0).code()) {
                return result<tuple_type>(rest.read_error(0));
            }
            if (stop.code != errc{} || stop.read_error) {
                return result<tuple_type>(csv_stop_error(stop, rows_before, lines_before + s.lines,
                                                         name, job.head().names, Job::call));
            }
            tuple_type out = std::move(parts2[0].out);
            for (unsigned u = 1; u <= t; ++u) {
                job.append(out, std::move(parts2[u].out));
            }
            job.append(out, std::move(tail));
            return result<tuple_type>(std::move(out));
        }
        rows_before += s.rows;
        lines_before += s.lines;
    }
    // The join, in file order, into slice 0's columns (which have room for all): the columns
    // shared among the threads, each appended by one (its pages touched there).
    tuple_type out = std::move(parts2[0].out);
    std::vector<tuple_type*> rest;
    for (unsigned t = 1; t < slices; ++t) {
        rest.push_back(&parts2[t].out);
    }
    in_slices(job.join_units(), slices, [&](unsigned, std::size_t first, std::size_t last) {
        for (std::size_t k = first; k < last; ++k) {
            job.join(out, rest, k);
        }
    });
    return result<tuple_type>(std::move(out));
}

/// The records of the file at `path` read by `job` (resolved against its header here), `o`
/// settled and `d` its dialect: see csv::columns(path)'s comment in csv.hpp.
template <class Job>
result<typename Job::output_type> csv_job_file(const std::filesystem::path& path,
                                               const csv::options& o, const csv_dialect& d,
                                               Job& job) {
    const thread_scope threads_scope(o.threads);
    result<input_file> opened = input_file::open(path);
    if (!opened) {
        return opened.error();
    }
    input_file& file = *opened;
    const std::string name = path.string();
    if (file.info().regular && o.io == io_mode::read && d.escape == 0 && o.header) {
        if (const unsigned threads = file.slice_threads(file.size(), number_bytes_per_thread,
                                                        2 * number_bytes_per_thread);
            threads > 1) {
            // The header from the head: where the body starts.
            const std::span<const char> head = file.head(plan_head_bytes);
            memory_source hsrc(head);
            csv_source_input<memory_source> in(hsrc);
            csv_reader r(d, in);
            result<csv_head> h = csv_read_head(r, o, name);
            if (h && !h->names.empty() && !r.unterminated() && r.position() < file.size()) {
                if (fastread::error e = job.resolve(*h, name); e.code()) {
                    return e;
                }
                // No quote in the head: the cuts are guessed (and checked), not counted.
                const bool guess =
                    d.quote == 0 || std::memchr(head.data(), d.quote, head.size()) == nullptr;
                if (auto done =
                        csv_job_slices(file, threads, r.position(), r.lines(), d, job, guess)) {
                    return std::move(*done);
                }
            }
        }
    }
    const std::uint64_t size = file.info().regular ? file.size() : 0;
    result<file_source> source = file_source::try_adopt(std::move(file), o.io);
    if (!source) {
        return source.error();
    }
    csv_source_input<file_source> in(*source);
    return csv_job_input(in, o, d, job, name, size);
}

/// csv::columns(path): see its comment in csv.hpp.
template <class... T>
result<std::tuple<csv::column_of<T>...>>
csv_columns_file(const std::filesystem::path& path, const csv::options& asked,
                 const std::array<csv::column_key, sizeof...(T)>& keys) {
    const result<csv::options> settled = settle_call(asked);
    if (!settled) {
        return settled.error();
    }
    result<csv_dialect> d = csv_dialect_of(*settled);
    if (!d) {
        return d.error();
    }
    csv_columns_job<T...> job(*settled, keys);
    return csv_job_file(path, *settled, *d, job);
}

} // namespace fastread::detail

#endif // FASTREAD_CSV_DETAIL_SLICES_HPP
