#ifndef FASTREAD_RECORDS_DETAIL_RECORD_UPDATE_HPP
#define FASTREAD_RECORDS_DETAIL_RECORD_UPDATE_HPP

/// @file
/// Sorted updates of cached records, in windows (`update_at`, `automatic` on cached pages).
/// A system call costs more on this project's hosts than copying a few pages, so requests
/// are joined across gaps and the changed records go back in runs (one `pwrite` for
/// changed records less than a page apart); and the calls of a window run on every CPU:
/// its requests are read side by side, fn runs on the calling thread in file order, then
/// the runs are written side by side. docs/benchmarks/, "Records at random
/// positions", has the rows this was chosen from.

#include "../../detail/parallel.hpp"
#include "../../detail/policy.hpp"
#include "../../detail/posix.hpp"
#include "../../detail/rw.hpp"
#include "../../error.hpp"
#include "record_layout.hpp"
#include "record_plan.hpp"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <exception>
#include <filesystem>
#include <limits>
#include <memory>
#include <string>
#include <system_error>
#include <type_traits>
#include <vector>

namespace fastread::detail {

/// One window of update_in_windows: the requests [qa, qb) of `requests`, read into
/// `buffer`, request q at buffer offset slot[q - qa]; what fn changed and the runs that
/// write it back. Each step is a member function, run in order by update_in_windows.
template <class Layout>
struct update_window {
    /// A change: the visit, where its record is in the buffer, its request, and where its
    /// bytes before the change are in `saved`.
    struct change {
        std::size_t visit;
        std::size_t at;
        std::size_t request;
        std::size_t before;
    };
    /// A run: buffer bytes [lo, hi) at file `offset`, holding changes [first, last).
    struct run {
        std::size_t lo, hi;
        std::uint64_t offset;
        std::size_t first, last;
    };
    /// How a run's write went: the errno (0: written) and the bytes it wrote.
    struct outcome {
        int err = 0;
        std::size_t done = 0;
    };
    static constexpr std::size_t none = std::numeric_limits<std::size_t>::max();

    Layout layout;
    int fd;
    const std::filesystem::path& path;
    const std::vector<record_ref>& refs;
    const std::vector<block_request>& requests;
    char* buffer;
    unsigned threads;
    std::size_t qa = 0, qb = 0;
    std::vector<std::size_t> slot{}; // buffer offset of each request of the window
    std::vector<change> changes{};
    std::vector<unsigned char> saved{}; // the changed records' bytes before fn
    std::vector<run> runs{};
    std::vector<outcome> outcomes{};
    std::size_t stop = 0; // the request fn threw in: none of its changes go back
    std::exception_ptr thrown{};
    std::uint64_t thrown_index = 0;

    /// Threads for a phase of `calls` system calls (calls_per_thread each, at most threads).
    unsigned threads_for_calls(std::size_t calls) const {
        return static_cast<unsigned>(
            std::clamp<std::size_t>(calls / calls_per_thread, 1, std::max(1u, threads)));
    }

    /// Where record refs[k] of request q is in the buffer.
    std::size_t record_at(std::size_t q, std::size_t k) const {
        return slot[q - qa] +
               static_cast<std::size_t>(refs[k].index * layout.size() - requests[q].offset);
    }

    /// The window from request `first`: as many requests as fit in `cap` bytes (one at least).
    void take(std::size_t first, std::size_t cap) {
        qa = qb = first;
        std::size_t bytes = 0;
        slot.clear();
        while (qb < requests.size() && (qb == qa || bytes + requests[qb].length <= cap)) {
            slot.push_back(bytes);
            bytes += requests[qb].length;
            ++qb;
        }
    }

    /// 1. Reads the window's requests, on every CPU: false, with `failure` set, on a read
    /// error or a file that ends early.
    bool read(update_failure& failure) {
        const unsigned readers = threads_for_calls(qb - qa);
        std::vector<error> read_errors(readers);
        in_slices(qb - qa, readers, [&](unsigned t, std::size_t b, std::size_t e) {
            for (std::size_t q = qa + b; q < qa + e; ++q) {
                const block_request& r = requests[q];
                if (pread_full(fd, buffer + slot[q - qa], r.length, r.offset, path,
                               read_errors[t]) != r.length) {
                    if (!read_errors[t].code()) {
                        read_errors[t] = os_error(EIO, "pread (the file ended early)", path);
                    }
                    return;
                }
            }
        });
        for (const error& e : read_errors) {
            if (e.code()) {
                failure = {e, requests[qa].first};
                return false;
            }
        }
        return true;
    }

    /// 2. fn in file order, on this thread; a request's changes are kept or dropped whole
    /// (those of the request fn threw in are dropped, and `thrown` keeps its exception).
    void apply(const record_update& fn) {
        changes.clear();
        saved.clear();
        stop = qb;
        thrown = nullptr;
        typename Layout::scratch before(layout);
        for (std::size_t q = qa; q < qb && !thrown; ++q) {
            for (std::size_t k = requests[q].first; k < requests[q].last; ++k) {
                char* const record = buffer + record_at(q, k);
                bool changed = false;
                FASTREAD_TRY {
                    changed = update_record(layout, fn, record, before.data());
                }
                FASTREAD_CATCH_ALL {
                    thrown = std::current_exception();
                    thrown_index = refs[k].index;
                    stop = q;
                    break;
                }
                if (changed) {
                    changes.push_back(change{k, record_at(q, k), q, saved.size()});
                    saved.insert(saved.end(), before.data(), before.data() + layout.size());
                }
            }
        }
        while (!changes.empty() && changes.back().request >= stop) {
            changes.pop_back();
        }
    }

    /// 3. The runs: changed records of one request, ascending, less than a page apart; the
    /// bytes between them go back as they were read, so no page without a change is dirtied.
    void plan_runs() {
        const std::size_t page = page_size();
        runs.clear();
        for (std::size_t i = 0; i < changes.size();) {
            std::size_t lo = changes[i].at, hi = lo + layout.size(), j = i + 1;
            for (; j < changes.size() && changes[j].request == changes[i].request; ++j) {
                const std::size_t a = changes[j].at;
                if (a >= lo && a + layout.size() <= hi) {
                    continue; // a record of the run, changed again
                }
                if (a < hi || a - hi >= page) {
                    break;
                }
                hi = a + layout.size();
            }
            const std::size_t q = changes[i].request;
            runs.push_back(run{lo, hi, requests[q].offset + (lo - slot[q - qa]), i, j});
            i = j;
        }
    }

    /// 4. Writes the runs, on every CPU; after a failure no run after it is started. The
    /// first run that failed, or `none`.
    std::size_t write_runs() {
        outcomes.assign(runs.size(), outcome{});
        std::atomic<std::size_t> failed{none};
        in_slices(runs.size(), threads_for_calls(runs.size()),
                  [&](unsigned, std::size_t b, std::size_t e) {
                      for (std::size_t w = b; w < e; ++w) {
                          if (failed.load(std::memory_order_relaxed) < w) {
                              return;
                          }
                          const run& r = runs[w];
                          outcome& o = outcomes[w];
                          o.err = pwrite_counted(fd, buffer + r.lo, r.hi - r.lo, r.offset, o.done);
                          if (o.err != 0) {
                              std::size_t seen = failed.load(std::memory_order_relaxed);
                              while (w < seen && !failed.compare_exchange_weak(seen, w)) {
                              }
                              return;
                          }
                      }
                  });
        return failed.load();
    }

    /// After run `f` failed: the runs after it that other threads wrote go back to the
    /// bytes they replaced, and the failure counts the visits before the first record run
    /// `f` did not write.
    update_failure failed_write(std::size_t f) {
        const run& r = runs[f];
        std::size_t lost = r.first;
        while (lost + 1 < r.last && changes[lost].at + layout.size() <= r.lo + outcomes[f].done) {
            ++lost;
        }
        int undo_err = 0;
        for (std::size_t w = f + 1; w < runs.size() && undo_err == 0; ++w) {
            if (outcomes[w].done == 0) {
                continue;
            }
            for (std::size_t c = runs[w].last; c-- > runs[w].first;) {
                std::memcpy(buffer + changes[c].at, saved.data() + changes[c].before,
                            layout.size());
            }
            std::size_t done = 0;
            undo_err =
                pwrite_counted(fd, buffer + runs[w].lo, outcomes[w].done, runs[w].offset, done);
        }
        return update_failure_of(outcomes[f].err,
                                 undo_err == 0 ? "pwrite"
                                               : "pwrite (and restoring records after the "
                                                 "failed write failed too: later records "
                                                 "may hold their new values)",
                                 path.string(), changes[lost].visit);
    }

    /// fn threw (apply): update_error (`operation_canceled`) with its exception nested,
    /// the visits before its request applied.
    void rethrow_from_fn() const {
        const std::size_t applied = requests[stop].first;
        FASTREAD_TRY {
            std::rethrow_exception(thrown);
        }
        FASTREAD_CATCH_ALL {
            throw_nested(update_error(std::make_error_code(std::errc::operation_canceled),
                                      "update_at: fn threw for record " +
                                          std::to_string(thrown_index) + " of \"" + path.string() +
                                          "\" (" + std::to_string(applied) + " updates applied)",
                                      applied));
        }
    }
};

/// Applies fn to the records of `refs` (visits in file order, as visit_order(…, true)),
/// an array of records of `layout` in the file `fd` of `size` bytes, as if one by one in that
/// order, and writes back the records that changed.
///
/// Windows of requests (plan_blocks with `rules`, up to update_window_bytes each) run one
/// after another: the window's requests are read on up to `threads` threads; fn runs on
/// the calling thread in visiting order; the changed records are written with one pwrite
/// per run on up to `threads` threads. Memory: one window buffer (≤ update_window_bytes,
/// or the longest request) and a record plus 4 words per changed record of a window.
///
/// A failure stops the batch and is set in `failure`, with `applied` exact, the first
/// `applied` visits in the file and none after: a read error or a file that ends early (EIO)
/// counts the visits of the windows before; a failed write the visits before the first
/// record it did not write, after writing the records of later runs that other threads
/// wrote as they were again (if that fails too, the message says so and `applied` is a
/// lower bound).
/// @throws update_error if fn throws: the window's requests before the one it threw in are
///         written first, then update_error (`operation_canceled`) with fn's exception
///         nested and `applied()` = the visits before that request.
template <class Layout>
void update_in_windows(Layout layout, int fd, const std::filesystem::path& path,
                       const std::vector<record_ref>& refs, const record_update& fn,
                       std::uint64_t size, const block_rules& rules, unsigned threads,
                       update_failure& failure) {
    const std::vector<block_request> requests = plan_blocks(refs, layout.size(), size, rules);
    if (requests.empty()) {
        return;
    }
    std::size_t total = 0;
    for (const block_request& r : requests) {
        total += r.length;
    }
    const std::size_t cap = std::max(update_window_bytes, largest_request(requests));
    std::unique_ptr<char[]> buffer(new char[std::min(cap, total)]);
    update_window<Layout> w{layout, fd, path, refs, requests, buffer.get(), threads};
    for (std::size_t first = 0; first < requests.size(); first = w.qb) {
        w.take(first, cap);
        if (!w.read(failure)) {
            return;
        }
        w.apply(fn);
        w.plan_runs();
        if (const std::size_t f = w.write_runs(); f != w.none) {
            failure = w.failed_write(f);
            return;
        }
        if (w.thrown) {
            w.rethrow_from_fn();
        }
    }
}

} // namespace fastread::detail

#endif // FASTREAD_RECORDS_DETAIL_RECORD_UPDATE_HPP
