#include "../detail/cxx20.hpp"
#if FASTREAD_CXX20 && !defined(FASTREAD_STRING_TABLE_WRITER_HPP)
#define FASTREAD_STRING_TABLE_WRITER_HPP

/// @file
/// Creating string tables: `string_table::write` (a range of strings, atomically) and
/// `string_table::writer` (one string at a time). string_table.hpp includes this header; in
/// the compiled mode (FASTREAD_SEPARATE_COMPILATION), where string_table.hpp gives the view
/// only, include it where tables are written. The format: docs/string-table.md.

#include "../detail/atomic_file.hpp"
#include "../detail/call_setup.hpp"
#include "../detail/file_map.hpp"
#include "../detail/policy.hpp"
#include "../detail/posix.hpp"
#include "../detail/rw.hpp"
#include "../error.hpp"
#include "detail/format.hpp"
#include "detail/unnamed_file.hpp"
#include "format.hpp"

#include <array>
#include <bit>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <iterator>
#include <memory>
#include <ranges>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

namespace fastread::string_table {

/// Writes `strings` (any range whose elements convert to std::string_view: bytes,
/// including NUL, any length) as a table at `path`, atomically: a temporary file in the
/// same directory, fsync, rename over `path`. What `path` already names is treated as by
/// ppm::save (links followed; permission bits, owner and group kept; other hard links and
/// non-regular files refused: EMLINK, EISDIR, EINVAL). Memory: a 1 MiB buffer; the strings
/// are not copied. A forward range is read three times (count, offsets, bytes); a
/// single-pass range goes through `writer`. Throws std::system_error (errno, path); on
/// Windows also when a view still maps `path` (EACCES: Windows refuses to replace a mapped
/// file; the old file and no temporary file remain), where on POSIX the view keeps the old
/// table.
template <std::ranges::input_range R>
requires std::convertible_to<std::ranges::range_reference_t<R>, std::string_view>
void write(const std::filesystem::path& path, R&& strings);

/// `write` without exceptions: nothing, or the `error` the throwing form reports (the
/// errno, naming the path; `path` is then left untouched). Never throws but
/// `std::bad_alloc` (and what iterating `strings` throws).
template <std::ranges::input_range R>
requires std::convertible_to<std::ranges::range_reference_t<R>, std::string_view> result<void>
try_write(const std::filesystem::path& path, R&& strings);

/// Writes a table one string at a time, for callers that cannot hold (or walk twice) all
/// the strings: the bytes go to an unnamed temporary file next to `path` as they come, the
/// offsets (8 bytes per string) stay in memory; `finish()` writes the header and offsets,
/// copies the bytes after them (copy_file_range, in the kernel), fsyncs and renames over
/// `path`. Without `finish()` the destructor leaves `path` untouched.
class writer {
  public:
    /// Throws std::system_error if the temporary files cannot be created, or if `path` is
    /// refused as string_table::write refuses it (before any string is added).
    explicit writer(const std::filesystem::path& path) : writer(path, error_) {
        detail::throw_if(error_);
    }
    /// As above, without throwing: on failure `err` holds the error, and try_add() and
    /// try_finish() do nothing but return false.
    writer(const std::filesystem::path& path, fastread::error& err)
        : path_(path), target_(path, err), out_(new char[capacity]) {
        if (!err.code()) {
            data_ = open_unnamed(target_.target(), err);
        }
        error_ = err;
        offsets_.push_back(0);
    }
    writer(const writer&) = delete;
    writer& operator=(const writer&) = delete;

    /// Appends one string. Throws std::system_error if a write fails.
    void add(std::string_view s) {
        try_add(s);
        detail::throw_if(error_);
    }

    /// Appends one string without throwing: false once a write failed (see error()).
    bool try_add(std::string_view s) {
        if (error_.code()) {
            return false;
        }
        if (used_ + s.size() > capacity && !flush()) {
            return false;
        }
        if (s.size() >= capacity) {
            if (!detail::write_all(data_.get(), s.data(), s.size(), path_, error_)) {
                return false;
            }
        } else {
            std::memcpy(out_.get() + used_, s.data(), s.size());
            used_ += s.size();
        }
        offsets_.push_back(offsets_.back() + s.size());
        return true;
    }

    /// Strings added so far.
    std::uint64_t size() const noexcept { return offsets_.size() - 1; }

    /// Writes the table and renames it over the path. Throws std::system_error.
    void finish() {
        try_finish();
        detail::throw_if(error_);
    }

    /// finish() without throwing: false (see error()) if the table could not be written;
    /// `path` is then untouched.
    bool try_finish() {
        if (error_.code() || !flush()) {
            return false;
        }
        const std::uint64_t data_size = offsets_.back();
        const auto header = detail::make_table_header(size(), data_size);
        detail::buffered_output out(target_, error_);
        out.put(header.data(), header.size());
        for (std::uint64_t off : offsets_) {
            out.put_u64(off);
        }
        out.flush();
        return !error_.code() && copy_data(data_size) && target_.commit(error_);
    }

    /// The first error of the writer (creating its files, a write); none otherwise.
    const fastread::error& error() const noexcept { return error_; }

  private:
    static constexpr std::size_t capacity = detail::block_bytes;

    static detail::unique_fd open_unnamed(const std::filesystem::path& path, fastread::error& err) {
        const std::filesystem::path dir = path.parent_path().empty() ? "." : path.parent_path();
        return detail::open_unnamed_file(dir, ".string-table-data", path, err);
    }

    bool flush() {
        if (used_ != 0) {
            if (!detail::write_all(data_.get(), out_.get(), used_, path_, error_)) {
                return false;
            }
            used_ = 0;
        }
        return true;
    }

    // Appends the data file to the target: in the kernel where it can, else read and write.
    bool copy_data(std::uint64_t size) {
        std::uint64_t done = 0;
        while (done < size && detail::copy_in_kernel(data_.get(), done, target_.fd(),
                                                     static_cast<std::size_t>(size - done)) != 0) {
        }
        while (done < size) {
            const std::size_t want =
                static_cast<std::size_t>(std::min<std::uint64_t>(capacity, size - done));
            const std::size_t got =
                detail::pread_full(data_.get(), out_.get(), want, done, path_, error_);
            if (error_.code()) {
                return false;
            }
            if (got == 0) {
                error_ = detail::os_error(EIO, "read back the strings for", path_);
                return false;
            }
            if (!target_.write(out_.get(), got, error_)) {
                return false;
            }
            done += got;
        }
        return true;
    }

    fastread::error error_; // first: the constructor writes it first
    std::filesystem::path path_;
    detail::atomic_file target_;
    detail::unique_fd data_;
    std::unique_ptr<char[]> out_;
    std::size_t used_ = 0;
    std::vector<std::uint64_t> offsets_;
};

template <std::ranges::input_range R>
requires std::convertible_to<std::ranges::range_reference_t<R>, std::string_view> result<void>
try_write(const std::filesystem::path& path, R&& strings) {
    if (fastread::error e = detail::process_setting_error(); e.code()) {
        return e;
    }
    if constexpr (!std::ranges::forward_range<R>) {
        // A single pass: through a writer.
        fastread::error err;
        writer w(path, err);
        for (auto&& s : strings) {
            if (!w.try_add(std::string_view(s))) {
                break;
            }
        }
        if (!w.try_finish()) {
            return w.error();
        }
        return {};
    } else {
        std::uint64_t count = 0, data_size = 0;
        for (auto&& s : strings) {
            ++count;
            data_size += std::string_view(s).size();
        }
        fastread::error err;
        detail::atomic_file file(path, err);
        if (err.code()) {
            return err;
        }
        detail::buffered_output out(file, err);
        const auto header = detail::make_table_header(count, data_size);
        out.put(header.data(), header.size());
        std::uint64_t at = 0;
        out.put_u64(0);
        for (auto&& s : strings) {
            at += std::string_view(s).size();
            out.put_u64(at);
        }
        for (auto&& s : strings) {
            const std::string_view v(s);
            out.put(v.data(), v.size());
        }
        out.flush();
        if (!file.commit(err)) {
            return err;
        }
        return {};
    }
}

template <std::ranges::input_range R>
requires std::convertible_to<std::ranges::range_reference_t<R>, std::string_view>
void write(const std::filesystem::path& path, R&& strings) {
    detail::value_or_throw(try_write(path, std::forward<R>(strings)));
}

} // namespace fastread::string_table

#endif // FASTREAD_STRING_TABLE_WRITER_HPP
