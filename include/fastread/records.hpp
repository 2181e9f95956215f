#include "detail/cxx20.hpp"
#if FASTREAD_CXX20 && !defined(FASTREAD_RECORDS_HPP)
#define FASTREAD_RECORDS_HPP

/// @file
/// Records at positions: `fastread::read_at` and `fastread::update_at` read, or read,
/// change and write back, fixed-size records (a file as an array of T in native byte
/// order) at many indices in one batch; `fastread::positioned_file` keeps the file open
/// across batches.
///
/// A batch is planned before it runs: indices are checked against the file size, sorted
/// (stably; the results still come back in the caller's order), and records that share a
/// page are read with one request. Then one of the methods below runs it; `automatic`
/// picks one from whether the records' pages are in the page cache (`cachestat`, else
/// `mincore`, of a sample of up to 64 of them): cached, the records are copied with `pread`
/// (requests joined across gaps of up to 8 KiB) on one thread per CPU, and updates write
/// back runs of changed records with `pwrite`; cold, many reads are kept in flight with
/// io_uring (when fastread was built with liburing and the kernel allows a ring: probed
/// once at run time) or else read one request at a time with `pread` and
/// `POSIX_FADV_RANDOM`. Reads come from a guarded map only where the caller asks
/// (`record_options::io`, `FASTREAD_IO=map`): a file that shrinks during such a call gives a
/// std::system_error naming it, never SIGBUS. Updates never store through a map unless the
/// method is `mmap`. The threads a batch uses follow `record_options::threads`.
///
/// The random-records article's (docs/articles.md) `fseek` programs are the bench's
/// baselines (bench/baselines/fseek_records.hpp), not part of the library.
///
/// io_uring support: define `FASTREAD_HAVE_LIBURING=1` and link liburing (Debian
/// `liburing-dev`); the CMake target `fastread::fastread` does both when CMake finds
/// liburing.

#include "detail/config.hpp"
#include "error.hpp"
#include "io.hpp"
#include "records/detail/record_layout.hpp"
#include "records/detail/record_types.hpp"
#include "records/options.hpp"
#include "result.hpp"
#if !FASTREAD_SEPARATE_COMPILATION
#include "records/detail/path.hpp"
#include "records/positioned_file.hpp"
#endif

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <iterator>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

namespace fastread {

namespace detail {

/// fastread::compiled's core of read_at and update_at by path (src/fastread.cpp), for
/// records of `record_size` bytes: read_at's records into `out` (`count` records), or its
/// error; update_at's failure, if any. Header-only code runs the same batches with the
/// record size known at compile time (records/detail/path.hpp).
result<void> read_records_file(const std::filesystem::path& path,
                               std::span<const std::uint64_t> indices, std::size_t record_size,
                               void* out, std::size_t count, const record_options& options);
update_failure update_records_file(const std::filesystem::path& path,
                                   std::span<const std::uint64_t> indices, std::size_t record_size,
                                   const record_update& fn, const record_options& options);

/// read_at of records of type T by path, in either mode.
template <class T>
result<void> read_records_of(const std::filesystem::path& path,
                             std::span<const std::uint64_t> indices, std::span<T> out,
                             const record_options& options) {
    static_assert(std::is_trivially_copyable_v<T>, "records are copied as bytes");
#if FASTREAD_SEPARATE_COMPILATION
    return read_records_file(path, indices, sizeof(T), out.data(), out.size(), options);
#else
    return record_access::read(path, static_record<sizeof(T)>{}, indices,
                               reinterpret_cast<char*>(out.data()), out.size(), options);
#endif
}

/// update_at of records of type T by path, in either mode: its failure, if any.
template <class T, class F>
update_failure update_records_of(const std::filesystem::path& path,
                                 std::span<const std::uint64_t> indices, F& fn,
                                 const record_options& options) {
    static_assert(std::is_trivially_copyable_v<T>, "records are copied as bytes");
#if FASTREAD_SEPARATE_COMPILATION
    return update_records_file(path, indices, sizeof(T), record_update::of<T>(fn), options);
#else
    return record_access::update(path, static_record<sizeof(T)>{}, indices,
                                 record_update::of<T>(fn), options);
#endif
}

} // namespace detail

/// Reads records at positions: out[i] = the T at record index indices[i] of `path`, an
/// array of T in native byte order (T trivially copyable).
///
/// @param path    the file, opened read-only for the call.
/// @param indices record indices (not byte offsets), in any order, repeats allowed.
/// @param out     one T per index; the same length as `indices`.
/// @param options the method and its dials (record_options); the defaults suit most.
/// @throws std::invalid_argument if the lengths differ; std::out_of_range if an index is
///         at or past the last whole record (a partial record at the end is out of range),
///         before anything is read; std::system_error (errno, path) if a call fails,
///         ENOSYS for `io_uring` where it is not available.
///
/// Cost: a sort of the indices (O(n), radix), then one request per run of records in
/// adjacent pages (pread, io_uring), or none (mmap). `automatic` (the default) chooses as
/// the file doc says.
/// If another process truncates the file during the call: `automatic`, `pread` and
/// `io_uring` throw std::system_error (EIO) naming the file (`automatic` also when asked to
/// map: its map is guarded), or std::out_of_range when the cut came before the indices
/// were checked; `mmap` is not guarded, and reading a page past the new end raises SIGBUS.
template <class T>
void read_at(const std::filesystem::path& path, std::span<const std::uint64_t> indices,
             std::span<T> out, const record_options& options = {}) {
    detail::value_or_throw(detail::read_records_of<T>(path, indices, out, options));
}

/// read_at into any contiguous range of trivially copyable records, whose element type is
/// the record type: `std::vector<T>&`, `std::span<T>`, `std::array<T, N>&`, `T[N]`.
/// `out` has one record per index; throws as the span form above.
///
///     std::vector<std::int32_t> out(idx.size());
///     fastread::read_at("t.bin", idx, out); // records of 4 bytes
template <detail::record_output Out>
void read_at(const std::filesystem::path& path, std::span<const std::uint64_t> indices, Out&& out,
             const record_options& options = {}) {
    using T = detail::range_record_t<Out>;
    read_at<T>(path, indices, std::span<T>(std::data(out), std::size(out)), options);
}

/// The records of `path` at `indices`, returned: element i is the T at record index
/// indices[i] (a vector of indices.size() records). Throws as the span form above; the
/// vector is allocated before the file is read.
template <class T>
std::vector<T> read_at(const std::filesystem::path& path, std::span<const std::uint64_t> indices,
                       const record_options& options = {}) {
    static_assert(std::is_trivially_copyable_v<T>, "records are copied as bytes");
    std::vector<T> out(indices.size());
    read_at<T>(path, indices, std::span<T>(out), options);
    return out;
}

/// `read_at` without exceptions: nothing, or the `error` the throwing form reports (the
/// caller's mistakes as `errc::invalid_argument` and `errc::out_of_range`, before anything
/// is read; the system's failures with their errno, naming the path: a read that fails,
/// EIO for a file that shrank during the call, ENOSYS for `io_uring` where it is not
/// available). Never throws but `std::bad_alloc`. `out` is only partly written after an
/// error.
template <class T>
result<void> try_read_at(const std::filesystem::path& path, std::span<const std::uint64_t> indices,
                         std::span<T> out, const record_options& options = {}) {
    return detail::read_records_of<T>(path, indices, out, options);
}

/// `try_read_at` into any contiguous range of trivially copyable records (as read_at).
template <detail::record_output Out>
result<void> try_read_at(const std::filesystem::path& path, std::span<const std::uint64_t> indices,
                         Out&& out, const record_options& options = {}) {
    using T = detail::range_record_t<Out>;
    return try_read_at<T>(path, indices, std::span<T>(std::data(out), std::size(out)), options);
}

/// `try_read_at` returning the records (one T per index), or the error.
template <class T>
result<std::vector<T>> try_read_at(const std::filesystem::path& path,
                                   std::span<const std::uint64_t> indices,
                                   const record_options& options = {}) {
    std::vector<T> out(indices.size());
    if (result<void> r = try_read_at<T>(path, indices, std::span<T>(out), options); !r) {
        return r.error();
    }
    return out;
}

/// Updates records at positions: for each i, record indices[i] = fn(record); the file
/// ends as if the updates were applied one by one in the caller's order (a repeated index
/// is updated each time, in order; sorting is stable). Only records (pread, mmap) or byte
/// ranges of a request (io_uring, unsorted batches) that changed are written back.
///
/// @param path    the file, opened read-write for the call.
/// @param indices record indices (not byte offsets), in any order, repeats allowed.
/// @param options the method and its dials (record_options); `durable` adds an fdatasync.
/// @param fn called once per index, always on the calling thread, with the record's
///           current value (a T); returns the new value (a T). Calls come in visiting
///           order (file order when sorted), except with io_uring, where they come request
///           by request as reads complete (in order within a request). If it throws:
///           batches updated in order (unsorted, or cached pages with `automatic`) throw
///           update_error (`std::errc::operation_canceled`) with `applied()` and fn's
///           exception nested (std::rethrow_if_nested); other sorted pread / mmap batches
///           call fn for every record before writing any, so its exception leaves the file
///           untouched; with io_uring, the requests in flight finish (no further fn call)
///           and update_error (`operation_canceled`, fn's exception nested) counts in
///           `applied()` the updates of every request whose write completed, which (requests
///           complete in any order) need not be the first ones.
/// @throws std::out_of_range if an index is past the last whole record (file untouched);
///         update_error (a std::system_error) if opening for writing, a read, a write or
///         the final sync fails, with `applied()` = updates already in the file.
template <class T, class F>
void update_at(const std::filesystem::path& path, std::span<const std::uint64_t> indices, F&& fn,
               const record_options& options = {}) {
    detail::report_update(detail::update_records_of<T>(path, indices, fn, options));
}

/// `update_at` without exceptions: nothing, or the `error` the throwing form reports (an
/// index out of range as `errc::out_of_range`, nothing written; the system's failures with
/// their errno, naming the path, the message saying how many updates were applied). When
/// `applied` is given, it receives the updates known to be in the file: all of them on
/// success, else what update_error::applied() would say. Never throws but `std::bad_alloc`
/// and what `fn` throws (which reaches the caller as from update_at: an update_error with
/// `fn`'s exception nested).
template <class T, class F>
result<void> try_update_at(const std::filesystem::path& path,
                           std::span<const std::uint64_t> indices, F&& fn,
                           const record_options& options = {}, std::size_t* applied = nullptr) {
    if (applied != nullptr) {
        *applied = 0; // if fn throws
    }
    const detail::update_failure f = detail::update_records_of<T>(path, indices, fn, options);
    if (applied != nullptr) {
        *applied = f ? f.applied : indices.size();
    }
    if (f) {
        return f.err;
    }
    return {};
}

/// update_at with the record type taken from `fn`'s parameter: `fn` is a function or a
/// lambda without `auto` that takes one record (by value or const reference) and returns
/// the new one. Otherwise as the form above (`update_at<T>(path, indices, fn)`).
///
///     fastread::update_at("t.bin", idx, [](std::int32_t v) { return v + 1; });
template <detail::deducible_update F>
void update_at(const std::filesystem::path& path, std::span<const std::uint64_t> indices, F&& fn,
               const record_options& options = {}) {
    update_at<detail::update_record_t<F>>(path, indices, std::forward<F>(fn), options);
}

/// try_update_at with the record type taken from `fn`'s parameter (as update_at).
template <detail::deducible_update F>
result<void> try_update_at(const std::filesystem::path& path,
                           std::span<const std::uint64_t> indices, F&& fn,
                           const record_options& options = {}, std::size_t* applied = nullptr) {
    return try_update_at<detail::update_record_t<F>>(path, indices, std::forward<F>(fn), options,
                                                     applied);
}

} // namespace fastread

#endif // FASTREAD_RECORDS_HPP
