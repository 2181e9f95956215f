#include "../detail/cxx20.hpp"
#if FASTREAD_CXX20 && !defined(FASTREAD_RECORDS_POSITIONED_FILE_HPP)
#define FASTREAD_RECORDS_POSITIONED_FILE_HPP

/// @file
/// `fastread::positioned_file`: a file of fixed-size records kept open across batches of
/// read_at / update_at (the methods and the planning: fastread/records.hpp).

#include "../detail/call_setup.hpp"
#include "../detail/file_map.hpp"
#include "../detail/file_shrank.hpp"
#include "../detail/input_file.hpp"
#include "../detail/parallel.hpp"
#include "../detail/posix.hpp"
#include "../detail/residency.hpp"
#include "../detail/rw.hpp"
#include "../io.hpp"
#include "detail/record_io.hpp"
#include "detail/record_layout.hpp"
#include "detail/record_plan.hpp"
#include "detail/record_types.hpp"
#include "detail/record_update.hpp"
#include "options.hpp"

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <exception>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <utility>
#include <vector>

namespace fastread {

namespace detail {
struct record_access; // fastread::compiled's core (records/detail/path.hpp)
} // namespace detail

/// A file of fixed-size records kept open across batches of read_at / update_at.
///
/// The file is an array of T in native byte order; a partial record at its end is out of
/// range. The size is taken again (fstat) at the start of every batch.
class positioned_file {
  public:
    /// Opens `path` read-only, or read-write when `writable`. Throws std::system_error
    /// naming it if it cannot be opened or is not a regular file (EISDIR, EINVAL; a FIFO
    /// is never waited on).
    explicit positioned_file(const std::filesystem::path& path, bool writable = false)
        : positioned_file(detail::value_or_throw(try_open(path, writable))) {}

    /// Opens `path` as above, without throwing: the file, or the error (the errno, naming
    /// the path).
    static result<positioned_file> try_open(const std::filesystem::path& path,
                                            bool writable = false) {
        error err = detail::process_setting_error();
        if (err.code()) {
            return err;
        }
        result<detail::input_file> file = detail::input_file::open_regular(
            path, writable ? "update records" : "read records",
            writable ? detail::open_mode::read_write : detail::open_mode::read_only);
        if (!file) {
            return file.error();
        }
        return positioned_file(path, writable, file->release());
    }

    ///@{
    /// Moves the file (its descriptor); not copyable.
    positioned_file(positioned_file&&) noexcept = default;
    positioned_file& operator=(positioned_file&&) noexcept = default;
    ///@}

    /// The file's path.
    const std::filesystem::path& path() const noexcept { return path_; }

    /// Whole records of `record_size` bytes in the file now (one fstat).
    /// @throws std::invalid_argument if `record_size` is 0; std::system_error naming the
    ///         file if fstat fails.
    std::uint64_t record_count(std::size_t record_size) const {
        if (record_size == 0) {
            detail::throw_error(
                detail::invalid_argument_value("positioned_file::record_count: a record size of 0 "
                                               "bytes (\"" +
                                               path_.string() + "\")"));
        }
        return detail::stat_fd(fd_.get(), path_).size / record_size;
    }

    /// out[i] = the T at record index indices[i], for every i; see fastread::read_at.
    template <class T>
    void read_at(std::span<const std::uint64_t> indices, std::span<T> out,
                 const record_options& options = {}) {
        detail::value_or_throw(try_read_at<T>(indices, out, options));
    }

    /// read_at without exceptions: nothing, or the error read_at reports (see
    /// fastread::try_read_at).
    template <class T>
    result<void> try_read_at(std::span<const std::uint64_t> indices, std::span<T> out,
                             const record_options& asked = {}) {
        static_assert(std::is_trivially_copyable_v<T>, "records are copied as bytes");
        return read_records(detail::static_record<sizeof(T)>{}, indices,
                            reinterpret_cast<char*>(out.data()), out.size(), asked);
    }

    /// out[i] = the record at indices[i], the record type taken from `out` (any contiguous
    /// range of trivially copyable records); see fastread::read_at.
    template <detail::record_output Out>
    void read_at(std::span<const std::uint64_t> indices, Out&& out,
                 const record_options& options = {}) {
        using T = detail::range_record_t<Out>;
        read_at<T>(indices, std::span<T>(std::data(out), std::size(out)), options);
    }

    /// The records at `indices`, in their order (one T per index); see fastread::read_at.
    template <class T>
    std::vector<T> read_at(std::span<const std::uint64_t> indices,
                           const record_options& options = {}) {
        std::vector<T> out(indices.size());
        read_at<T>(indices, std::span<T>(out), options);
        return out;
    }

    /// For each i, record indices[i] = fn(record); see fastread::update_at.
    template <class T, class F>
    void update_at(std::span<const std::uint64_t> indices, F&& fn,
                   const record_options& options = {}) {
        static_assert(std::is_trivially_copyable_v<T>, "records are copied as bytes");
        detail::report_update(update_records(detail::static_record<sizeof(T)>{}, indices,
                                             detail::record_update::of<T>(fn), options));
    }

    /// update_at without exceptions; see fastread::try_update_at.
    template <class T, class F>
    result<void> try_update_at(std::span<const std::uint64_t> indices, F&& fn,
                               const record_options& options = {}, std::size_t* applied = nullptr) {
        static_assert(std::is_trivially_copyable_v<T>, "records are copied as bytes");
        const detail::update_failure f = update_records(detail::static_record<sizeof(T)>{}, indices,
                                                        detail::record_update::of<T>(fn), options);
        if (applied != nullptr) {
            *applied = f ? f.applied : indices.size();
        }
        if (f) {
            return f.err;
        }
        return {};
    }

    /// update_at with the record type taken from `fn`'s parameter (a function or a lambda
    /// without `auto` taking one record by value or const reference).
    template <detail::deducible_update F>
    void update_at(std::span<const std::uint64_t> indices, F&& fn,
                   const record_options& options = {}) {
        update_at<detail::update_record_t<F>>(indices, std::forward<F>(fn), options);
    }

  private:
    friend struct detail::record_access;

    // read_at's work, compiled once per record size (Layout): the records at `indices`
    // into `out` (`count` records of layout.size() bytes), or the error.
    template <class Layout>
    result<void> read_records(Layout layout, std::span<const std::uint64_t> indices, char* out,
                              std::size_t count, const record_options& asked);

    // update_at's work, compiled once per record size (Layout), whatever fn is: its
    // failure, if any (fn's exceptions propagate, nested in an update_error).
    template <class Layout>
    detail::update_failure update_records(Layout layout, std::span<const std::uint64_t> indices,
                                          const detail::record_update& fn,
                                          const record_options& asked) {
        const result<record_options> settled = detail::settle_call(asked);
        if (!settled) {
            return {settled.error(), 0};
        }
        const record_options& options = *settled;
        if (!writable_) {
            const std::error_code code = std::make_error_code(std::errc::bad_file_descriptor);
            return {
                error(code,
                      "update_at: " + path_.string() + " was opened read-only: " + code.message(),
                      path_.string()),
                0};
        }
        error err;
        const std::uint64_t size = checked_size(indices, layout.size(), err);
        if (err.code()) {
            return {err, 0};
        }
        if (indices.empty()) {
            return {};
        }
        const detail::thread_scope threads(options.threads);
        const std::vector<detail::record_ref> refs = detail::visit_order(indices, options.sort);
        const plan p = make_plan(refs, layout.size(), size, options, true, err);
        if (err.code()) {
            return {err, 0};
        }
        detail::update_failure failure;
        if (p.method == access_method::io_uring && options.sort) {
            update_uring(layout, refs, fn, size, p.rules, failure);
        } else if (options.sort && p.cached_runs) {
            // Cached pages in file order: joined reads, then one pwrite per run of changed
            // records, each phase of a window on every CPU.
            detail::update_in_windows(layout, fd_.get(), path_, refs, fn, size, p.rules, p.threads,
                                      failure);
        } else if (!options.sort || p.cached_runs) {
            // In the caller's order a repeated index is not next to its earlier visit:
            // one request at a time, each written back before the next is read (joined
            // reads and runs of changed records on cached pages).
            std::optional<random_advice> advice;
            if (p.cold) {
                advice.emplace(fd_.get());
            }
            update_in_order(layout, refs, fn, size, p.rules, failure);
        } else {
            update_in_phases(layout, refs, fn, size, p, failure);
        }
        if (failure) {
            return failure;
        }
        return sync(options, indices.size());
    }

    // How a batch runs: the method (never automatic), threads, request rules, and the map
    // when the method is mmap (guarded when automatic chose it).
    struct plan {
        access_method method = access_method::pread;
        unsigned threads = 1;
        detail::block_rules rules = detail::pread_rules();
        bool cold = false;
        bool cached_runs = false; // automatic on cached pages: joined requests, runs written
        detail::file_map map;     // when the method is mmap
    };

    // The plan; a map that cannot be made is an error in `err`.
    plan make_plan(const std::vector<detail::record_ref>& refs, std::size_t record_size,
                   std::uint64_t size, const record_options& options, bool updating,
                   error& err) const {
        plan p;
        p.method = options.method;
        bool guarded = false;
        if (p.method == access_method::io_uring) {
            p.rules = detail::cold_rules();
        }
        if (p.method == access_method::automatic) {
            // Cached: the one threshold of the file layer (resident_percent of the pages the
            // records fall on).
            const bool cached = detail::resident_share(
                                    fd_.get(), size, detail::residency_sample(refs, record_size)) *
                                    100 >=
                                detail::resident_percent;
            // Reads come from a guarded map only where mapping is asked for (io_mode::map);
            // updates never go through a map here: a store into a hole on a full file
            // system raises SIGBUS, where pwrite reports ENOSPC.
            if (!updating && options.io == io_mode::map) {
                p.method = access_method::mmap;
                guarded = true;
            } else if (cached) {
                // A system call costs more than copying a few pages here and there: requests
                // are joined across small gaps, and updates write back runs of changed
                // records (cached_runs).
                p.method = access_method::pread;
                p.rules = detail::block_rules{detail::page_size(), detail::cached_merge_gap,
                                              detail::cached_request_bytes};
                p.cached_runs = true;
            } else if (detail::uring_usable() && (options.sort || !updating)) {
                p.method = access_method::io_uring;
                p.rules = detail::cold_rules();
            } else {
                p.method = access_method::pread;
                p.cold = true;
                p.rules = detail::cold_rules();
            }
        }
        if (p.method == access_method::mmap) {
            if (guarded) {
                p.map = detail::guarded_map(fd_.get(), size);
                if (!p.map) {
                    p.method = access_method::pread; // cannot be mapped or guarded: read
                }
            } else {
                int map_error = 0;
                p.map = detail::file_map::try_map(fd_.get(), size,
                                                  updating ? detail::file_map::access::read_write
                                                           : detail::file_map::access::read_only,
                                                  detail::file_map::sharing::shared, map_error);
                if (map_error != 0) {
                    err = detail::os_error(map_error, "mmap", path_);
                    return p;
                }
            }
            // Only the wanted pages: no read-around of neighbours on each fault.
            p.map.advise(detail::map_advice::random);
        }
        // Cached work splits over the CPUs; cold pread waits on the device, so more threads
        // keep more reads in flight.
        p.threads = p.cold ? detail::threads_for(refs.size(), detail::cold_records_per_thread,
                                                 detail::cold_thread_groups) *
                                 detail::cold_threads_per_group
                           : detail::threads_for(refs.size(), detail::cached_records_per_thread,
                                                 detail::most_cpu_threads);
        p.threads = std::max(1u, std::min<unsigned>(p.threads, static_cast<unsigned>(refs.size())));
        return p;
    }

    // The file's size now; throws std::out_of_range (nothing read or written) if an index
    // is at or past the last whole record.
    std::uint64_t checked_size(std::span<const std::uint64_t> indices,
                               std::size_t record_size) const {
        error err;
        const std::uint64_t size = checked_size(indices, record_size, err);
        detail::throw_if(err);
        return size;
    }
    // The same, the error (fstat's, or errc::out_of_range) in `err`.
    std::uint64_t checked_size(std::span<const std::uint64_t> indices, std::size_t record_size,
                               error& err) const {
        const std::uint64_t size = detail::stat_fd(fd_.get(), path_, err).size;
        if (!err.code()) {
            err = detail::indices_problem(indices, size / record_size, path_);
        }
        return size;
    }

    // Reads every request (on `threads` threads, each a contiguous share) and calls
    // on_request(request, bytes) with its bytes.
    // A read error, or a file that ends before a request (it shrank), stops that thread's
    // share and is the error in `err` (the first share's that failed).
    template <class OnRequest>
    void for_each_request(const std::vector<detail::block_request>& requests, unsigned threads,
                          OnRequest on_request, error& err) const {
        const std::size_t most = detail::largest_request(requests);
        threads = std::min<unsigned>(threads, static_cast<unsigned>(requests.size()));
        std::vector<error> errors(std::max(1u, threads));
        detail::in_slices(requests.size(), threads, [&](unsigned t, std::size_t b, std::size_t e) {
            std::unique_ptr<char[]> buffer(new char[most]);
            for (std::size_t q = b; q < e; ++q) {
                const detail::block_request& r = requests[q];
                if (detail::pread_full(fd_.get(), buffer.get(), r.length, r.offset, path_,
                                       errors[t]) != r.length) {
                    if (!errors[t].code()) {
                        errors[t] = detail::file_shrank_error(path_);
                    }
                    return;
                }
                on_request(r, buffer.get());
            }
        });
        for (const error& e : errors) {
            if (e.code()) {
                err = e;
                return;
            }
        }
    }
    // The same, throwing the error (std::system_error).
    template <class OnRequest>
    void for_each_request(const std::vector<detail::block_request>& requests, unsigned threads,
                          OnRequest on_request) const {
        error err;
        for_each_request(requests, threads, std::move(on_request), err);
        detail::throw_if(err);
    }

    // Visits of the same index up to and including visit k.
    static std::size_t count_run(const std::vector<detail::record_ref>& refs, std::size_t k) {
        std::size_t c = 1;
        while (k >= c && refs[k - c].index == refs[k].index) {
            ++c;
        }
        return c;
    }

    // Sparse cold batches: no readahead around each request (restored afterwards).
    struct random_advice {
        int fd;
        explicit random_advice(int f) : fd(f) { detail::advise(fd, detail::file_advice::random); }
        random_advice(const random_advice&) = delete;
        random_advice& operator=(const random_advice&) = delete;
        ~random_advice() { detail::advise(fd, detail::file_advice::normal); }
    };

    // Sorted updates in three phases: the records are read (on several threads, from the
    // map or with pread), fn runs on this thread in visiting order (a repeated index, next
    // to its earlier visits, gets the value they left), and the records that changed are
    // written back (stores into the map on several threads, or one pwrite each).
    template <class Layout>
    void update_in_phases(Layout layout, const std::vector<detail::record_ref>& refs,
                          const detail::record_update& fn, std::uint64_t size, const plan& p,
                          detail::update_failure& failure);

    // One request at a time: read, fn on its records in visiting order, then the changed
    // records written back in runs (records in ascending order less than a page apart are
    // written with one pwrite; the bytes between them are rewritten as they were read, so
    // no page that had no change is dirtied). On a failed write, applied() = the first
    // visit whose change did not reach the file.
    template <class Layout>
    void update_in_order(Layout layout, const std::vector<detail::record_ref>& refs,
                         const detail::record_update& fn, std::uint64_t size,
                         const detail::block_rules& rules, detail::update_failure& failure);

    template <class Layout>
    void read_uring(Layout layout, const std::vector<detail::record_ref>& refs, char* out,
                    std::uint64_t size, const detail::block_rules& rules, error& err);

    template <class Layout>
    void update_uring(Layout layout, const std::vector<detail::record_ref>& refs,
                      const detail::record_update& fn, std::uint64_t size,
                      const detail::block_rules& rules, detail::update_failure& failure);

    detail::update_failure sync(const record_options& options, std::size_t applied) {
        if (const int err = options.durable ? detail::sync_data(fd_.get()) : 0; err != 0) {
            return detail::update_failure_of(err, "fdatasync", path_.string(), applied);
        }
        return {};
    }

    positioned_file(const std::filesystem::path& path, bool writable, detail::unique_fd fd)
        : path_(path), writable_(writable), fd_(std::move(fd)) {}

    std::filesystem::path path_;
    bool writable_ = false;
    detail::unique_fd fd_;
};

} // namespace fastread

#include "detail/strategies.hpp"

#endif // FASTREAD_RECORDS_POSITIONED_FILE_HPP
