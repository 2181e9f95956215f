// The public header first: it includes this one at its end, after what this one uses.
#include "../view.hpp"
#ifndef FASTREAD_STRING_TABLE_DETAIL_VIEW_HPP
#define FASTREAD_STRING_TABLE_DETAIL_VIEW_HPP

/// @file
/// string_table::view's opening and checks: header-only (included by view.hpp), or compiled
/// once in src/fastread.cpp for fastread::compiled (FASTREAD_SEPARATE_COMPILATION).

#include <array>
#include <bit>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <memory>
#include <ranges>
#include <string>
#include <utility>

#include "../../detail/call_setup.hpp"
#include "../../detail/file_map.hpp"
#include "../../detail/input_file.hpp"
#include "../../detail/posix.hpp"
#include "../../detail/rw.hpp"
#include "../../error.hpp"
#include "../format.hpp"
#include "load.hpp"

namespace fastread::string_table {

// The view is a random-access, sized range of std::string_view (checked here, where
// <ranges> is read anyway).
static_assert(std::random_access_iterator<view::iterator>);
static_assert(std::ranges::random_access_range<const view&>);
static_assert(std::ranges::sized_range<const view&>);

// Out of line: the map is an incomplete type where view.hpp is read alone.
FASTREAD_COMPILED_INLINE view::view() noexcept = default;
FASTREAD_COMPILED_INLINE view::view(view&& other) noexcept {
    swap(other);
}
FASTREAD_COMPILED_INLINE view& view::operator=(view&& other) noexcept {
    view(std::move(other)).swap(*this);
    return *this;
}
FASTREAD_COMPILED_INLINE view::~view() = default;

FASTREAD_COMPILED_INLINE result<view> view::try_open(const std::filesystem::path& path) {
    result<view> v = try_open_unchecked(path);
    if (v) {
        if (fastread::error e = v->check_offsets(path); e.code()) {
            return e;
        }
    }
    return v;
}

FASTREAD_COMPILED_INLINE result<view> view::try_open_unchecked(const std::filesystem::path& path) {
    fastread::error err = detail::process_setting_error();
    if (err.code()) {
        return err;
    }
    // The file layer opens it; O_NONBLOCK: a FIFO must not block the open, it is refused
    // just below.
    result<detail::input_file> opened = detail::input_file::open(path, detail::o_nonblock);
    if (!opened) {
        return opened.error();
    }
    const int fd = opened->fd();
    const detail::file_info& info = opened->info();
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
    detail::pread_full(fd, reinterpret_cast<char*>(header.data()), header.size(), 0, path, err);
    if (err.code()) {
        return err;
    }
    view v;
    if (fastread::error e = v.check_header(header.data(), info.size, file); e.code()) {
        return e;
    }
    int map_error = 0;
    v.map_ = std::make_unique<detail::file_map>(
        detail::file_map::try_map(fd, info.size, detail::file_map::access::read_only,
                                  detail::file_map::sharing::shared, map_error));
    if (map_error != 0) {
        return detail::os_error(map_error, "mmap", path);
    }
    const auto* bytes = reinterpret_cast<const unsigned char*>(v.map_->data());
    v.offsets_ = bytes + v.offsets_at_;
    v.data_ = bytes + v.data_at_;
    return v;
}

FASTREAD_COMPILED_INLINE fastread::error
view::check_header(const unsigned char* h, std::uint64_t file_size, const std::string& file) {
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
        return fail(format::at_file_size, "the header says the file has " + std::to_string(total) +
                                              " bytes; it has " + std::to_string(file_size) +
                                              (total > file_size ? " (truncated)" : ""));
    }
    // Every size below is checked against the file size before it is multiplied, so
    // nothing overflows.
    if (count >= file_size / 8) {
        return fail(format::at_count, std::to_string(count) + " strings cannot fit: their offsets "
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

FASTREAD_COMPILED_INLINE fastread::error
view::check_offsets(const std::filesystem::path& path) const {
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
                return (detail::parse_error_value(
                    offsets_at_ + 8 * i,
                    "offset of string " + std::to_string(i) + " is before the previous one", file));
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

} // namespace fastread::string_table

#endif // FASTREAD_STRING_TABLE_DETAIL_VIEW_HPP
