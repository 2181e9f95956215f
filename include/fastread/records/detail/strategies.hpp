#ifndef FASTREAD_RECORDS_DETAIL_STRATEGIES_HPP
#define FASTREAD_RECORDS_DETAIL_STRATEGIES_HPP

// positioned_file's update strategies and its io_uring batches (fastread/records.hpp
// documents what each method does).

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

template <class T, class F>
void positioned_file::update_in_phases(const std::vector<detail::record_ref>& refs, F& fn,
                                       std::uint64_t size, const plan& p,
                                       detail::update_failure& failure) {
    const std::size_t n = refs.size();
    std::unique_ptr<unsigned char[]> values(new unsigned char[n * sizeof(T)]);
    auto value_at = [&](std::size_t k) { return values.get() + k * sizeof(T); };
    {
        // With pread even for mmap: a read fault would map the pages read-only, and
        // each later store would fault again (ext4's page_mkwrite;
        // docs/benchmarks/, "Records at random positions").
        std::optional<random_advice> advice;
        if (p.cold) {
            advice.emplace(fd_.get());
        }
        const std::vector<detail::block_request> requests =
            detail::plan_blocks(refs, sizeof(T), size, p.rules);
        error err;
        for_each_request(
            requests, p.threads,
            [&](const detail::block_request& r, const char* buffer) {
                for (std::size_t k = r.first; k < r.last; ++k) {
                    std::memcpy(value_at(k), buffer + (refs[k].index * sizeof(T) - r.offset),
                                sizeof(T));
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
    for (std::size_t k = 0; k < n;) {
        std::size_t e = k + 1;
        while (e < n && refs[e].index == refs[k].index) {
            ++e;
        }
        T original, value;
        std::memcpy(&original, value_at(k), sizeof(T));
        value = original;
        for (std::size_t j = k; j < e; ++j) {
            value = fn(value);
        }
        if (std::memcmp(&value, &original, sizeof(T)) != 0) {
            std::memcpy(value_at(e - 1), &value, sizeof(T));
            writes.push_back(e - 1);
        }
        k = e;
    }
    if (p.method == access_method::mmap) {
        char* const base = p.map.data();
        detail::in_slices(writes.size(), p.threads, [&](unsigned, std::size_t b, std::size_t e) {
            for (std::size_t w = b; w < e; ++w) {
                std::memcpy(base + refs[writes[w]].index * sizeof(T), value_at(writes[w]),
                            sizeof(T));
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
        std::vector<unsigned char> bytes((e - w) * sizeof(T));
        for (std::size_t j = w; j < e; ++j) {
            std::memcpy(bytes.data() + (j - w) * sizeof(T), value_at(writes[j]), sizeof(T));
        }
        error err;
        if (!detail::pwrite_all(fd_.get(), reinterpret_cast<const char*>(bytes.data()),
                                bytes.size(), refs[writes[w]].index * sizeof(T), path_, err)) {
            // Every visit before this write's first record is in the file.
            failure = {err, writes[w] + 1 - count_run(refs, writes[w])};
            return;
        }
        w = e;
    }
}

template <class T, class F>
void positioned_file::update_in_order(const std::vector<detail::record_ref>& refs, F& fn,
                                      std::uint64_t size, const detail::block_rules& rules,
                                      detail::update_failure& failure) {
    const std::vector<detail::block_request> requests =
        detail::plan_blocks(refs, sizeof(T), size, rules);
    std::unique_ptr<char[]> buffer(new char[detail::largest_request(requests)]);
    const std::size_t page = detail::page_size();
    std::vector<std::size_t> changed; // visits of the request that changed their record
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
            return static_cast<std::size_t>(refs[k].index * sizeof(T) - r.offset);
        };
        changed.clear();
        for (std::size_t k = r.first; k < r.last; ++k) {
            T value;
            std::memcpy(&value, buffer.get() + at(k), sizeof(T));
            T updated = value;
            FASTREAD_TRY {
                updated = fn(value);
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
            if (std::memcmp(&updated, buffer.get() + at(k), sizeof(T)) != 0) {
                std::memcpy(buffer.get() + at(k), &updated, sizeof(T));
                changed.push_back(k);
            }
        }
        for (std::size_t i = 0; i < changed.size();) {
            std::size_t lo = at(changed[i]), hi = lo + sizeof(T), j = i + 1;
            for (; j < changed.size(); ++j) {
                const std::size_t a = at(changed[j]);
                if (a >= lo && a + sizeof(T) <= hi) {
                    continue; // a record of the run, changed again
                }
                if (a < hi || a - hi >= page) {
                    break;
                }
                hi = a + sizeof(T);
            }
            std::size_t done = 0;
            const int err =
                detail::pwrite_counted(fd_.get(), buffer.get() + lo, hi - lo, r.offset + lo, done);
            if (err != 0) {
                std::size_t lost = i;
                while (lost + 1 < j && at(changed[lost]) + sizeof(T) <= lo + done) {
                    ++lost;
                }
                failure = detail::update_failure_of(err, "pwrite", path_.string(), changed[lost]);
                return;
            }
            i = j;
        }
    }
}

template <class T>
void positioned_file::read_uring(const std::vector<detail::record_ref>& refs, std::span<T> out,
                                 std::uint64_t size, const detail::block_rules& rules, error& err) {
#if FASTREAD_HAVE_LIBURING
    if (!detail::uring_usable()) {
        err = detail::os_error(ENOSYS, "io_uring_queue_init", path_);
        return;
    }
    const std::vector<detail::block_request> requests =
        detail::plan_blocks(refs, sizeof(T), size, rules);
    random_advice advice(fd_.get());
    detail::run_on_uring(
        fd_.get(), requests, detail::uring_depth,
        [&](std::size_t q, const char* buffer) {
            const detail::block_request& r = requests[q];
            for (std::size_t k = r.first; k < r.last; ++k) {
                std::memcpy(&out[refs[k].pos], buffer + (refs[k].index * sizeof(T) - r.offset),
                            sizeof(T));
            }
            return std::pair<std::size_t, std::size_t>{0, 0};
        },
        [](std::size_t) {},
        [&](int errno_value, const char* operation) {
            err = detail::os_error(errno_value, operation, path_);
        });
#else
    (void)refs, (void)out, (void)size, (void)rules;
    err = detail::os_error(ENOSYS, "io_uring (fastread was built without liburing)", path_);
#endif
}

template <class T, class F>
void positioned_file::update_uring(const std::vector<detail::record_ref>& refs, F& fn,
                                   std::uint64_t size, const detail::block_rules& rules,
                                   detail::update_failure& failure) {
#if FASTREAD_HAVE_LIBURING
    if (!detail::uring_usable()) {
        failure = detail::update_failure_of(ENOSYS, "io_uring_queue_init", path_.string(), 0);
        return;
    }
    const std::vector<detail::block_request> requests =
        detail::plan_blocks(refs, sizeof(T), size, rules);
    random_advice advice(fd_.get());
    std::size_t applied = 0;
    bool fn_threw = false;
    FASTREAD_TRY {
        detail::run_on_uring(
            fd_.get(), requests, detail::uring_depth,
            [&](std::size_t q, char* buffer) {
                FASTREAD_TRY {
                    return detail::apply_in_buffer<T>(buffer, requests[q], refs, fn);
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
    (void)refs, (void)fn, (void)size, (void)rules;
    failure = detail::update_failure_of(ENOSYS, "io_uring (fastread was built without liburing)",
                                        path_.string(), 0);
#endif
}

} // namespace fastread

#endif // FASTREAD_RECORDS_DETAIL_STRATEGIES_HPP
