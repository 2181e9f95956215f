#include "detail/cxx20.hpp"
#if FASTREAD_CXX20 && !defined(FASTREAD_STRING_TABLE_HPP)
#define FASTREAD_STRING_TABLE_HPP

/// @file
/// A zero-copy string table: many strings persisted flat in one file and used straight
/// from a map of it. `string_table::write` and `string_table::writer` create tables;
/// `string_table::view::open` maps one and checks every offset in one pass,
/// `view::open_unchecked` checks only the header (O(1) in the number of strings). The file
/// format is specified in docs/string-table.md: a 64-byte header, `count + 1` 64-bit
/// little-endian offsets (8-byte aligned), the string bytes.
///
/// Byte order: tables are little-endian on every host. On a big-endian host `open` and
/// `open_unchecked` throw `parse_error` (byte 12: the byte-order mark); no host fastread
/// builds for today is big-endian.

#include "detail/atomic_file.hpp"
#include "detail/call_setup.hpp"
#include "detail/file_map.hpp"
#include "detail/policy.hpp"
#include "detail/posix.hpp"
#include "detail/rw.hpp"
#include "error.hpp"
#include "string_table/detail/format.hpp"
#include "string_table/format.hpp"

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

/// A table mapped read-only: string i is a std::string_view into the map, valid while the
/// view lives. Move-only; unmaps on destruction.
///
/// The map is the point (zero copies), so it is not guarded: if the file shrinks while a
/// view of it exists (rewritten in place instead of replaced by rename, as
/// string_table::write does), touching a string past the file's new end raises SIGBUS,
/// which ends the process unless the program handles that signal.
class view {
  public:
    class iterator;

    /// An empty table (no file).
    view() noexcept = default;
    ///@{
    /// Moves the table (its map); `other` is left empty. Not copyable.
    view(view&& other) noexcept { swap(other); }
    view& operator=(view&& other) noexcept {
        view(std::move(other)).swap(*this);
        return *this;
    }
    ///@}
    view(const view&) = delete;
    view& operator=(const view&) = delete;
    ~view() = default;

    /// Maps `path` and checks the header and every offset in one sequential pass
    /// (offsets[0] = 0, never decreasing, offsets[count] = the data size). O(count) time,
    /// no allocation. Throws parse_error with the byte offset of the first problem (see
    /// docs/string-table.md for the rules), std::system_error if the file cannot be
    /// opened or mapped.
    static view open(const std::filesystem::path& path) {
        return detail::value_or_throw(try_open(path));
    }

    /// `open` without exceptions: the view, or the `error` `open` reports (a malformed
    /// table as `errc::malformed_input` with the byte offset of the first problem; the errno
    /// of open, fstat, pread or mmap). Never throws but `std::bad_alloc`.
    static result<view> try_open(const std::filesystem::path& path) {
        result<view> v = try_open_unchecked(path);
        if (v) {
            if (fastread::error e = v->check_offsets(path); e.code()) {
                return e;
            }
        }
        return v;
    }

    /// Maps `path` and checks only the header: O(1) in the number of strings (open, fstat,
    /// a 64-byte pread, mmap; no page of the map is touched). Offsets are not checked: `at()`
    /// checks the two it uses and throws parse_error on bad ones, `operator[]` clamps them into the
    /// data area, so a corrupt table gives wrong strings or errors, never a read outside the map.
    static view open_unchecked(const std::filesystem::path& path) {
        return detail::value_or_throw(try_open_unchecked(path));
    }

    /// `open_unchecked` without exceptions: the view, or the error it reports.
    static result<view> try_open_unchecked(const std::filesystem::path& path) {
        fastread::error err = detail::process_setting_error();
        if (err.code()) {
            return err;
        }
        // O_NONBLOCK: a FIFO must not block the open; it is refused just below.
        detail::unique_fd fd = detail::open_read_only(path, detail::o_nonblock, err);
        if (!fd) {
            return err;
        }
        const detail::file_info info = detail::stat_fd(fd.get(), path, err);
        if (err.code()) {
            return err;
        }
        const std::string file = path.string();
        if (!info.regular) {
            return detail::parse_error_value(0, "not a regular file", file);
        }
        if (info.size < format::header_size) {
            return detail::parse_error_value(info.size,
                                             "the file ends before its 64-byte header (" +
                                                 std::to_string(info.size) + " bytes)",
                                             file);
        }
        // The header with pread, not through the map: a first fault on a cold map reads
        // the kernel's whole read-around window (`read_ahead_kb`, often MiBs), a 64-byte read only
        // a page or a few.
        std::array<unsigned char, format::header_size> header{};
        detail::pread_full(fd.get(), reinterpret_cast<char*>(header.data()), header.size(), 0, path,
                           err);
        if (err.code()) {
            return err;
        }
        view v;
        if (fastread::error e = v.check_header(header.data(), info.size, file); e.code()) {
            return e;
        }
        int map_error = 0;
        v.map_ = detail::file_map::try_map(fd.get(), info.size, detail::file_map::access::read_only,
                                           detail::file_map::sharing::shared, map_error);
        if (map_error != 0) {
            return detail::os_error(map_error, "mmap", path);
        }
        v.offsets_ = v.bytes() + v.offsets_at_;
        v.data_ = v.bytes() + v.data_at_;
        return v;
    }

    /// Strings in the table.
    std::size_t size() const noexcept { return static_cast<std::size_t>(count_); }
    /// Whether the table holds no string.
    bool empty() const noexcept { return count_ == 0; }

    /// String i (i < size(), not checked). On a table from open_unchecked with corrupt
    /// offsets, the bytes are clamped to the data area: wrong, never out of bounds.
    std::string_view operator[](std::size_t i) const noexcept {
        std::uint64_t b = offset(i), e = offset(i + 1);
        e = e < data_size_ ? e : data_size_;
        b = b < e ? b : e;
        return {reinterpret_cast<const char*>(data_) + b, static_cast<std::size_t>(e - b)};
    }

    /// String i; throws std::out_of_range if i >= size(), parse_error (the offset entry's
    /// byte position) if its offsets are out of order or past the data.
    std::string_view at(std::size_t i) const {
        if (i >= count_) {
            detail::throw_error(fastread::error(make_error_code(errc::out_of_range),
                                                "string_table::view::at: index " +
                                                    std::to_string(i) + " >= size() " +
                                                    std::to_string(count_)));
        }
        const std::uint64_t b = offset(i), e = offset(i + 1);
        if (b > e || e > data_size_) {
            detail::throw_error(detail::parse_error_value(
                offsets_at_ + 8 * (b > e ? i : i + 1),
                "offset of string " + std::to_string(b > e ? i : i + 1) +
                    (b > e ? " is after the next one" : " is past the data")));
        }
        return {reinterpret_cast<const char*>(data_) + b, static_cast<std::size_t>(e - b)};
    }

    ///@{
    /// The strings in order, as a random-access range of std::string_view.
    iterator begin() const noexcept;
    iterator end() const noexcept;
    ///@}

    /// Bytes of string data (the sum of the lengths).
    std::uint64_t data_size() const noexcept { return data_size_; }

    /// Exchanges the tables of `*this` and `other`.
    void swap(view& other) noexcept {
        std::swap(map_, other.map_);
        std::swap(offsets_, other.offsets_);
        std::swap(data_, other.data_);
        std::swap(count_, other.count_);
        std::swap(data_size_, other.data_size_);
        std::swap(offsets_at_, other.offsets_at_);
        std::swap(data_at_, other.data_at_);
    }

  private:
    std::uint64_t offset(std::size_t i) const noexcept {
        return detail::load_u64(offsets_ + 8 * i);
    }

    const unsigned char* bytes() const noexcept {
        return reinterpret_cast<const unsigned char*>(map_.data());
    }

    // Checks the header bytes `h` against the file's size; sets the counts and positions.
    fastread::error check_header(const unsigned char* h, std::uint64_t file_size,
                                 const std::string& file) {
        auto u16 = [&](std::size_t at) { return static_cast<unsigned>(h[at] | h[at + 1] << 8); };
        auto fail = [&](std::uint64_t at, const std::string& why) {
            return detail::parse_error_value(at, why, file);
        };
        if (std::memcmp(h, format::magic.data(), format::magic.size()) != 0) {
            return fail(0, "not a string table (wrong magic bytes)");
        }
        if (u16(format::at_version) != format::major_version) {
            return fail(format::at_version, "format version " +
                                                std::to_string(u16(format::at_version)) +
                                                " is not supported (this reader knows version 1)");
        }
        const unsigned char* bom = h + format::at_byte_order;
        if constexpr (std::endian::native == std::endian::big) {
            return fail(format::at_byte_order,
                        "string tables are little-endian; this host is big-endian");
        }
        if (!(bom[0] == 4 && bom[1] == 3 && bom[2] == 2 && bom[3] == 1)) {
            return fail(format::at_byte_order,
                        bom[0] == 1 && bom[1] == 2 && bom[2] == 3 && bom[3] == 4
                            ? "byte-order mark says the file is big-endian (byte-swapped)"
                            : "byte-order mark is not 04 03 02 01");
        }
        const std::uint64_t count = detail::load_u64(h + format::at_count);
        const std::uint64_t offsets_at = detail::load_u64(h + format::at_offsets);
        const std::uint64_t data_at = detail::load_u64(h + format::at_data);
        const std::uint64_t data_size = detail::load_u64(h + format::at_data_size);
        const std::uint64_t total = detail::load_u64(h + format::at_file_size);
        if (detail::load_u64(h + format::at_reserved) != 0) {
            return fail(format::at_reserved, "reserved header bytes are not zero");
        }
        if (total != file_size) {
            return fail(format::at_file_size, "the header says the file has " +
                                                  std::to_string(total) + " bytes; it has " +
                                                  std::to_string(file_size) +
                                                  (total > file_size ? " (truncated)" : ""));
        }
        // Every size below is checked against the file size before it is multiplied, so
        // nothing overflows.
        if (count >= file_size / 8) {
            return fail(format::at_count, std::to_string(count) +
                                              " strings cannot fit: their offsets "
                                              "alone need more than the file");
        }
        if (offsets_at < format::header_size || offsets_at % 8 != 0) {
            return fail(format::at_offsets, "offsets position " + std::to_string(offsets_at) +
                                                " overlaps the header or is not 8-byte aligned");
        }
        const std::uint64_t offsets_bytes = 8 * (count + 1);
        if (offsets_at > file_size || offsets_bytes > file_size - offsets_at) {
            return fail(format::at_offsets, "the offsets run past the end of the file (truncated)");
        }
        if (data_at < offsets_at + offsets_bytes) {
            return fail(format::at_data,
                        "data position " + std::to_string(data_at) + " overlaps the offsets");
        }
        if (data_at > file_size || data_size != file_size - data_at) {
            return fail(format::at_data_size, "data size " + std::to_string(data_size) +
                                                  " does not match the file (truncated data?)");
        }
        count_ = count;
        data_size_ = data_size;
        offsets_at_ = offsets_at;
        data_at_ = data_at;
        return {};
    }

    fastread::error check_offsets(const std::filesystem::path& path) const {
        const std::string file = path.string();
        // The offsets are read once, in order: ask for them ahead.
        detail::advise_range(offsets_, static_cast<std::size_t>(8 * (count_ + 1)),
                             detail::map_advice::will_need);
        if (offset(0) != 0) {
            return (detail::parse_error_value(offsets_at_, "the first offset is not 0", file));
        }
        // Branch-free over the whole array, then a second look only when it failed.
        std::uint64_t prev = 0, bad = 0;
        for (std::uint64_t i = 1; i <= count_; ++i) {
            const std::uint64_t cur = offset(static_cast<std::size_t>(i));
            bad |= static_cast<std::uint64_t>(cur < prev);
            prev = cur;
        }
        if (bad != 0) {
            prev = 0;
            for (std::uint64_t i = 1; i <= count_; ++i) {
                const std::uint64_t cur = offset(static_cast<std::size_t>(i));
                if (cur < prev) {
                    return (detail::parse_error_value(offsets_at_ + 8 * i,
                                                      "offset of string " + std::to_string(i) +
                                                          " is before the previous one",
                                                      file));
                }
                prev = cur;
            }
        }
        if (prev != data_size_) {
            return (detail::parse_error_value(offsets_at_ + 8 * count_,
                                              "the last offset (" + std::to_string(prev) +
                                                  ") is not the data size (" +
                                                  std::to_string(data_size_) + ")",
                                              file));
        }
        return {};
    }

    detail::file_map map_;
    const unsigned char* offsets_ = nullptr;
    const unsigned char* data_ = nullptr;
    std::uint64_t count_ = 0;
    std::uint64_t data_size_ = 0;
    std::uint64_t offsets_at_ = 0;
    std::uint64_t data_at_ = 0;
};

/// A random-access iterator over a view's strings (values are std::string_view).
class view::iterator {
  public:
    ///@{
    /// The std::random_access_iterator members: `*` and `[]` give the string (unchecked
    /// index, as view::operator[]), arithmetic and comparison move by whole strings.
    using iterator_category = std::random_access_iterator_tag;
    using iterator_concept = std::random_access_iterator_tag;
    using value_type = std::string_view;
    using difference_type = std::ptrdiff_t;
    using reference = std::string_view;
    using pointer = void;

    iterator() noexcept = default;
    iterator(const view* v, std::size_t i) noexcept : view_(v), i_(i) {}

    std::string_view operator*() const noexcept { return (*view_)[i_]; }
    std::string_view operator[](difference_type n) const noexcept {
        return (*view_)[static_cast<std::size_t>(static_cast<difference_type>(i_) + n)];
    }
    iterator& operator++() noexcept {
        ++i_;
        return *this;
    }
    iterator operator++(int) noexcept {
        iterator t = *this;
        ++i_;
        return t;
    }
    iterator& operator--() noexcept {
        --i_;
        return *this;
    }
    iterator operator--(int) noexcept {
        iterator t = *this;
        --i_;
        return t;
    }
    iterator& operator+=(difference_type n) noexcept {
        i_ = static_cast<std::size_t>(static_cast<difference_type>(i_) + n);
        return *this;
    }
    iterator& operator-=(difference_type n) noexcept { return *this += -n; }
    friend iterator operator+(iterator it, difference_type n) noexcept { return it += n; }
    friend iterator operator+(difference_type n, iterator it) noexcept { return it += n; }
    friend iterator operator-(iterator it, difference_type n) noexcept { return it -= n; }
    friend difference_type operator-(const iterator& a, const iterator& b) noexcept {
        return static_cast<difference_type>(a.i_) - static_cast<difference_type>(b.i_);
    }
    friend bool operator==(const iterator& a, const iterator& b) noexcept { return a.i_ == b.i_; }
    friend auto operator<=>(const iterator& a, const iterator& b) noexcept { return a.i_ <=> b.i_; }
    ///@}

  private:
    const view* view_ = nullptr;
    std::size_t i_ = 0;
};

inline view::iterator view::begin() const noexcept {
    return iterator(this, 0);
}
inline view::iterator view::end() const noexcept {
    return iterator(this, size());
}

static_assert(std::random_access_iterator<view::iterator>);
static_assert(std::ranges::random_access_range<const view&>);
static_assert(std::ranges::sized_range<const view&>);

} // namespace fastread::string_table

#endif // FASTREAD_STRING_TABLE_HPP
