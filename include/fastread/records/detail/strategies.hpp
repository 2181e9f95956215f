#ifndef FASTREAD_RECORDS_DETAIL_STRATEGIES_HPP
#define FASTREAD_RECORDS_DETAIL_STRATEGIES_HPP

// positioned_file's reads, its update strategies and its io_uring batches, each compiled
// once per record size (records/detail/record_layout.hpp; fastread/records.hpp documents
// what each method does).

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <exception>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <system_error>
#include <vector>

#include "../positioned_file.hpp"

namespace fastread {

template <class Layout>
result<void> positioned_file::read_records(Layout layout, std::span<const std::uint64_t> indices,
                                           char* out, std::size_t count,
                                           const record_options& asked) {
    const result<record_options> settled = detail::settle_call(asked);
    if (!settled) {
        return settled.error();
    }
    const record_options& options = *settled;
    if (indices.size() != count) {
        return detail::invalid_argument_value("read_at: indices (" +
                                              std::to_string(indices.size()) + ") and out (" +
                                              std::to_string(count) + ") differ in length");
    }
    error err;
    const std::uint64_t size = checked_size(indices, layout.size(), err);
    if (err.code()) {
        return err;
    }
    if (indices.empty()) {
        return {};
    }
    const detail::thread_scope threads(options.threads);
    const std::vector<detail::record_ref> refs = detail::visit_order(indices, options.sort);
    const plan p = make_plan(refs, layout.size(), size, options, false, err);
    if (err.code()) {
        return err;
    }
    auto copy_out = [&](const char* bytes, std::size_t k) {
        std::memcpy(out + refs[k].pos * layout.size(), bytes, layout.size());
    };
    switch (p.method) {
    case access_method::mmap:
        detail::in_slices(refs.size(), p.threads, [&](unsigned, std::size_t b, std::size_t e) {
            for (std::size_t k = b; k < e; ++k) {
                copy_out(p.map.data() + refs[k].index * layout.size(), k);
            }
        });
        if (p.map.lost() >= 0) {
            return detail::file_shrank_error(path_); // zeros stood in for lost pages
        }
        return {};
    case access_method::io_uring:
        read_uring(layout, refs, out, size, p.rules, err);
        if (err.code()) {
            return err;
        }
        return {};
    default: {
        std::optional<random_advice> advice;
        if (p.cold) {
            advice.emplace(fd_.get());
        }
        const std::vector<detail::block_request> requests =
            detail::plan_blocks(refs, layout.size(), size, p.rules);
        for_each_request(
            requests, p.threads,
            [&](const detail::block_request& r, const char* buffer) {
                for (std::size_t k = r.first; k < r.last; ++k) {
                    copy_out(buffer + (refs[k].index * layout.size() - r.offset), k);
                }
            },
            err);
        if (err.code()) {
            return err;
        }
        return {};
    }
    }
}

template <class Layout>
void positioned_file::update_in_phases(Layout layout, const std::vector<detail::record_ref>& refs,
                                       const detail::record_update& fn, std::uint64_t size,
                                       const plan& p, detail::update_failure& failure) {
    const std::size_t n = refs.size();
    std::unique_ptr<unsigned char[]> values(new unsigned char[n * layout.size()]);
    auto value_at = [&](std::size_t k) { return values.get() + k * layout.size(); };
    {
        // With pread even for mmap: a read fault would map the pages read-only, and
        // each later store would fault again (ext4's page_mkwrite;
        // docs/benchmarks/, "Records at random positions").
        std::optional<random_advice> advice;
        if (p.cold) {
            advice.emplace(fd_.get());
        }
        const std::vector<detail::block_request> requests =
            detail::plan_blocks(refs, layout.size(), size, p.rules);
        error err;
        for_each_request(
            requests, p.threads,
            [&](const detail::block_request& r, const char* buffer) {
                for (std::size_t k = r.first; k < r.last; ++k) {
                    std::memcpy(value_at(k), buffer + (refs[k].index * layout.size() - r.offset),
                                layout.size());
                }
            },
            err);
        if (err.code()) {
            failure = {err, 0};
            return;
        }
    }
    // fn, in order. `last[k]`: visit k is the last of its index and changed the record.
    std::vector<std::size_t> writes; // visits whose value goes back to the file
    typename Layout::scratch value(layout);
    for (std::size_t k = 0; k < n;) {
        std::size_t e = k + 1;
        while (e < n && refs[e].index == refs[k].index) {
            ++e;
        }
        std::memcpy(value.data(), value_at(k), layout.size());
        for (std::size_t j = k; j < e; ++j) {
            fn(value.data());
        }
        if (std::memcmp(value.data(), value_at(k), layout.size()) != 0) {
            std::memcpy(value_at(e - 1), value.data(), layout.size());
            writes.push_back(e - 1);
        }
        k = e;
    }
    if (p.method == access_method::mmap) {
        char* const base = p.map.data();
        detail::in_slices(writes.size(), p.threads, [&](unsigned, std::size_t b, std::size_t e) {
            for (std::size_t w = b; w < e; ++w) {
                std::memcpy(base + refs[writes[w]].index * layout.size(), value_at(writes[w]),
                            layout.size());
            }
        });
        return;
    }
    // One pwrite per changed record, joined when records are adjacent in the file.
    for (std::size_t w = 0; w < writes.size();) {
        std::size_t e = w + 1;
        while (e < writes.size() && refs[writes[e]].index == refs[writes[e - 1]].index + 1) {
            ++e;
        }
        std::vector<unsigned char> bytes((e - w) * layout.size());
        for (std::size_t j = w; j < e; ++j) {
            std::memcpy(bytes.data() + (j - w) * layout.size(), value_at(writes[j]), layout.size());
        }
        error err;
        if (!detail::pwrite_all(fd_.get(), reinterpret_cast<const char*>(bytes.data()),
                                bytes.size(), refs[writes[w]].index * layout.size(), path_, err)) {
            // Every visit before this write's first record is in the file.
            failure = {err, writes[w] + 1 - count_run(refs, writes[w])};
            return;
        }
        w = e;
    }
}

template <class Layout>
void positioned_file::update_in_order(Layout layout, const std::vector<detail::record_ref>& refs,
                                      const detail::record_update& fn, std::uint64_t size,
                                      const detail::block_rules& rules,
                                      detail::update_failure& failure) {
    const std::vector<detail::block_request> requests =
        detail::plan_blocks(refs, layout.size(), size, rules);
    std::unique_ptr<char[]> buffer(new char[detail::largest_request(requests)]);
    const std::size_t page = detail::page_size();
    std::vector<std::size_t> changed; // visits of the request that changed their record
    typename Layout::scratch before(layout);
    for (const detail::block_request& r : requests) {
        error err;
        const std::size_t got =
            detail::pread_full(fd_.get(), buffer.get(), r.length, r.offset, path_, err);
        if (err.code()) {
            failure = {err, r.first};
            return;
        }
        if (got != r.length) {
            failure = detail::update_failure_of(EIO, "pread (the file ended early)", path_.string(),
                                                r.first);
            return;
        }
        auto at = [&](std::size_t k) {
            return static_cast<std::size_t>(refs[k].index * layout.size() - r.offset);
        };
        changed.clear();
        for (std::size_t k = r.first; k < r.last; ++k) {
            bool updated = false;
            FASTREAD_TRY {
                updated = detail::update_record(layout, fn, buffer.get() + at(k), before.data());
            }
            FASTREAD_CATCH_ALL {
                // The requests before this one are in the file, none of this one's
                // changes: an update_error says so, with fn's exception nested.
                detail::throw_nested(update_error(
                    std::make_error_code(std::errc::operation_canceled),
                    "update_at: fn threw for record " + std::to_string(refs[k].index) + " of \"" +
                        path_.string() + "\" (" + std::to_string(r.first) + " updates applied)",
                    r.first));
            }
            if (updated) {
                changed.push_back(k);
            }
        }
        for (std::size_t i = 0; i < changed.size();) {
            std::size_t lo = at(changed[i]), hi = lo + layout.size(), j = i + 1;
            for (; j < changed.size(); ++j) {
                const std::size_t a = at(changed[j]);
                if (a >= lo && a + layout.size() <= hi) {
                    continue; // a record of the run, changed again
                }
                if (a < hi || a - hi >= page) {
                    break;
                }
                hi = a + layout.size();
            }
            std::size_t done = 0;
            const int err =
                detail::pwrite_counted(fd_.get(), buffer.get() + lo, hi - lo, r.offset + lo, done);
            if (err != 0) {
                std::size_t lost = i;
                while (lost + 1 < j && at(changed[lost]) + layout.size() <= lo + done) {
                    ++lost;
                }
                failure = detail::update_failure_of(err, "pwrite", path_.string(), changed[lost]);
                return;
            }
            i = j;
        }
    }
}

template <class Layout>
void positioned_file::read_uring(Layout layout, const std::vector<detail::record_ref>& refs,
                                 char* out, std::uint64_t size, const detail::block_rules& rules,
                                 error& err) {
#if FASTREAD_HAVE_LIBURING
    if (!detail::uring_usable()) {
        err = detail::os_error(ENOSYS, "io_uring_queue_init", path_);
        return;
    }
    const std::vector<detail::block_request> requests =
        detail::plan_blocks(refs, layout.size(), size, rules);
    random_advice advice(fd_.get());
    detail::run_on_uring(
        fd_.get(), requests, detail::uring_depth,
        [&](std::size_t q, const char* buffer) {
            const detail::block_request& r = requests[q];
            for (std::size_t k = r.first; k < r.last; ++k) {
                std::memcpy(out + refs[k].pos * layout.size(),
                            buffer + (refs[k].index * layout.size() - r.offset), layout.size());
            }
            return std::pair<std::size_t, std::size_t>{0, 0};
        },
        [](std::size_t) {},
        [&](int errno_value, const char* operation) {
            err = detail::os_error(errno_value, operation, path_);
        });
#else
    (void)layout, (void)refs, (void)out, (void)size, (void)rules;
    err = detail::os_error(ENOSYS, "io_uring (fastread was built without liburing)", path_);
#endif
}

template <class Layout>
void positioned_file::update_uring(Layout layout, const std::vector<detail::record_ref>& refs,
                                   const detail::record_update& fn, std::uint64_t size,
                                   const detail::block_rules& rules,
                                   detail::update_failure& failure) {
#if FASTREAD_HAVE_LIBURING
    if (!detail::uring_usable()) {
        failure = detail::update_failure_of(ENOSYS, "io_uring_queue_init", path_.string(), 0);
        return;
    }
    const std::vector<detail::block_request> requests =
        detail::plan_blocks(refs, layout.size(), size, rules);
    random_advice advice(fd_.get());
    std::size_t applied = 0;
    bool fn_threw = false;
    FASTREAD_TRY {
        detail::run_on_uring(
            fd_.get(), requests, detail::uring_depth,
            [&](std::size_t q, char* buffer) {
                FASTREAD_TRY {
                    return detail::apply_in_buffer(layout, buffer, requests[q], refs, fn);
                }
                FASTREAD_CATCH_ALL {
                    fn_threw = true;
                    FASTREAD_RETHROW;
                }
            },
            [&](std::size_t q) { applied += requests[q].last - requests[q].first; },
            [&](int err, const char* operation) {
                failure = detail::update_failure_of(err, operation, path_.string(), applied);
            });
    }
    FASTREAD_CATCH_ALL {
        if (!fn_threw) {
            FASTREAD_RETHROW;
        }
        // The requests whose writes completed are in the file (counted when each
        // finished, in completion order); none of the failing request's changes.
        detail::throw_nested(update_error(std::make_error_code(std::errc::operation_canceled),
                                          "update_at: fn threw (io_uring) for \"" + path_.string() +
                                              "\" (" + std::to_string(applied) +
                                              " updates applied)",
                                          applied));
    }
#else
    (void)layout, (void)refs, (void)fn, (void)size, (void)rules;
    failure = detail::update_failure_of(ENOSYS, "io_uring (fastread was built without liburing)",
                                        path_.string(), 0);
#endif
}

} // namespace fastread

#endif // FASTREAD_RECORDS_DETAIL_STRATEGIES_HPP
