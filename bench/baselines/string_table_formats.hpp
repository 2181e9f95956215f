#ifndef FASTREAD_BENCH_BASELINES_STRING_TABLE_FORMATS_HPP
#define FASTREAD_BENCH_BASELINES_STRING_TABLE_FORMATS_HPP

/// @file
/// The zero-copy article's (docs/articles.md) programs, kept as baselines for the `table` bench
/// family. Two file layouts, both in the writing machine's byte order with 32-bit lengths and no
/// header beyond a 32-bit count:
/// - naive: count, then for each string its length and its bytes;
/// - flat: count, all the lengths, then all the bytes.
/// Readers: `naive_read` (one allocation and one fread per string), `one_copy_read` (flat:
/// one fread for all the bytes, then an index), `zero_copy_read` (flat: mmap, then an
/// index of pointers into the map built by an O(n) pass over the lengths). The readers
/// check every length against the file so that a bad file throws parse_error instead of
/// reading out of bounds; otherwise they are the article's programs.

#include <fastread/detail/file_map.hpp>
#include <fastread/detail/posix.hpp>
#include <fastread/detail/stdio.hpp>
#include <fastread/error.hpp>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace fastread::detail {

inline unique_file open_stdio(const std::filesystem::path& path, const char* mode) {
    unique_file f(open_stream(path, mode));
    if (!f) {
        fastread::detail::throw_system_error(errno, "fopen", path);
    }
    return f;
}

inline void fwrite_all(std::FILE* f, const void* p, std::size_t n,
                       const std::filesystem::path& path) {
    if (n != 0 && std::fwrite(p, 1, n, f) != n) {
        fastread::detail::throw_system_error(errno, "fwrite", path);
    }
}

inline void fclose_checked(unique_file f, const std::filesystem::path& path) {
    if (std::fclose(f.release()) != 0) {
        fastread::detail::throw_system_error(errno, "fclose", path);
    }
}

/// Reads the leading 32-bit count with fread; sets `file_size`. Throws parse_error when
/// there is none or when the file cannot hold that many 4-byte lengths.
inline std::uint32_t read_table_count(std::FILE* f, const std::filesystem::path& path,
                                      std::uint64_t& file_size) {
    file_size = fastread::detail::stat_fd(::fileno(f), path).size;
    std::uint32_t count = 0;
    if (std::fread(&count, sizeof count, 1, f) != 1) {
        throw parse_error(0, "no count", path.string());
    }
    if (count > (file_size - 4) / 4) {
        throw parse_error(0, "count larger than the file can hold", path.string());
    }
    return count;
}

} // namespace fastread::detail

namespace fastread::string_table::baseline {

/// Strings each in its own allocation (the naive reader's result).
struct owned_strings {
    std::vector<std::unique_ptr<char[]>> bytes; ///< one allocation per string
    std::vector<std::uint32_t> lengths;         ///< bytes of each string
    /// Strings held.
    std::size_t size() const noexcept { return lengths.size(); }
    /// String i (i < size(), not checked).
    std::string_view operator[](std::size_t i) const noexcept {
        return {bytes[i].get(), lengths[i]};
    }
};

/// Strings in one buffer with an index (the one-copy reader's result).
struct copied_strings {
    std::unique_ptr<char[]> bytes;       ///< every string's bytes, back to back
    std::vector<std::string_view> index; ///< each string, pointing into `bytes`
    /// Strings held.
    std::size_t size() const noexcept { return index.size(); }
    /// String i (i < size(), not checked).
    std::string_view operator[](std::size_t i) const noexcept { return index[i]; }
};

/// Strings in a map with an index of pointers into it (the zero-copy reader's result).
class mapped_strings {
  public:
    mapped_strings() = default;
    /// Moves the map and the index (the views stay valid: the map does not move).
    mapped_strings(mapped_strings&& o) noexcept = default;
    mapped_strings& operator=(mapped_strings&&) = delete;
    /// Strings held.
    std::size_t size() const noexcept { return index.size(); }
    /// String i (i < size(), not checked).
    std::string_view operator[](std::size_t i) const noexcept { return index[i]; }

  private:
    friend mapped_strings zero_copy_read(const std::filesystem::path& path);
    fastread::detail::file_map map_;

  public:
    std::vector<std::string_view> index; ///< each string, pointing into the map
};

/// The naive writer: count, then (length, bytes) per string, with fwrite.
inline void naive_write(const std::filesystem::path& path,
                        std::span<const std::string_view> strings) {
    detail::unique_file f = detail::open_stdio(path, "wb");
    const auto count = static_cast<std::uint32_t>(strings.size());
    detail::fwrite_all(f.get(), &count, sizeof count, path);
    for (std::string_view s : strings) {
        const auto length = static_cast<std::uint32_t>(s.size());
        detail::fwrite_all(f.get(), &length, sizeof length, path);
        detail::fwrite_all(f.get(), s.data(), s.size(), path);
    }
    detail::fclose_checked(std::move(f), path);
}

/// The flat writer: count, all lengths, then all bytes.
inline void flat_write(const std::filesystem::path& path,
                       std::span<const std::string_view> strings) {
    detail::unique_file f = detail::open_stdio(path, "wb");
    const auto count = static_cast<std::uint32_t>(strings.size());
    detail::fwrite_all(f.get(), &count, sizeof count, path);
    for (std::string_view s : strings) {
        const auto length = static_cast<std::uint32_t>(s.size());
        detail::fwrite_all(f.get(), &length, sizeof length, path);
    }
    for (std::string_view s : strings) {
        detail::fwrite_all(f.get(), s.data(), s.size(), path);
    }
    detail::fclose_checked(std::move(f), path);
}

/// The naive reader: per string, fread its length, allocate, fread its bytes.
/// Throws parse_error (byte offset) for a count or length the file cannot hold.
inline owned_strings naive_read(const std::filesystem::path& path) {
    detail::unique_file f = detail::open_stdio(path, "rb");
    std::uint64_t file_size = 0;
    const std::uint32_t count = detail::read_table_count(f.get(), path, file_size);
    owned_strings out;
    out.bytes.reserve(count);
    out.lengths.reserve(count);
    std::uint64_t at = 4;
    for (std::uint32_t i = 0; i < count; ++i) {
        std::uint32_t length = 0;
        if (std::fread(&length, sizeof length, 1, f.get()) != 1) {
            throw parse_error(at, "truncated length", path.string());
        }
        at += 4;
        if (length > file_size - at) {
            throw parse_error(at - 4, "length past the end of the file", path.string());
        }
        std::unique_ptr<char[]> bytes(new char[length == 0 ? 1 : length]);
        if (length != 0 && std::fread(bytes.get(), 1, length, f.get()) != length) {
            throw parse_error(at, "truncated string", path.string());
        }
        at += length;
        out.bytes.push_back(std::move(bytes));
        out.lengths.push_back(length);
    }
    return out;
}

/// The one-copy reader of the flat layout: fread the count and the lengths, one
/// allocation and one fread for all the bytes, then the index.
inline copied_strings one_copy_read(const std::filesystem::path& path) {
    detail::unique_file f = detail::open_stdio(path, "rb");
    std::uint64_t file_size = 0;
    const std::uint32_t count = detail::read_table_count(f.get(), path, file_size);
    std::vector<std::uint32_t> lengths(count);
    if (count != 0 && std::fread(lengths.data(), 4, count, f.get()) != count) {
        throw parse_error(4, "truncated lengths", path.string());
    }
    const std::uint64_t data_at = 4 + 4 * std::uint64_t{count};
    std::uint64_t total = 0;
    for (std::uint32_t l : lengths) {
        total += l;
    }
    if (total > file_size - data_at) {
        throw parse_error(data_at, "lengths add up past the end of the file", path.string());
    }
    copied_strings out;
    out.bytes.reset(new char[total == 0 ? 1 : total]);
    if (total != 0 && std::fread(out.bytes.get(), 1, total, f.get()) != total) {
        throw parse_error(data_at, "truncated data", path.string());
    }
    out.index.reserve(count);
    std::uint64_t at = 0;
    for (std::uint32_t l : lengths) {
        out.index.emplace_back(out.bytes.get() + at, l);
        at += l;
    }
    return out;
}

/// The zero-copy reader of the flat layout: mmap the file, allocate the index, and set
/// each pointer with a running sum of the lengths (O(n) before the first string).
inline mapped_strings zero_copy_read(const std::filesystem::path& path) {
    fastread::detail::unique_fd fd = fastread::detail::open_read_only(path);
    const std::uint64_t file_size = fastread::detail::stat_fd(fd.get(), path).size;
    if (file_size < 4) {
        throw parse_error(0, "no count", path.string());
    }
    mapped_strings out;
    out.map_ = fastread::detail::file_map(fd.get(), file_size,
                                          fastread::detail::file_map::access::read_only,
                                          fastread::detail::file_map::sharing::shared, path);
    const char* base = out.map_.data();
    std::uint32_t count = 0;
    std::memcpy(&count, base, 4);
    if (count > (file_size - 4) / 4) {
        throw parse_error(0, "count larger than the file can hold", path.string());
    }
    const char* lengths = base + 4;
    const char* data = lengths + 4 * std::uint64_t{count};
    const std::uint64_t room = file_size - 4 - 4 * std::uint64_t{count};
    out.index.resize(count);
    std::uint64_t at = 0;
    for (std::uint32_t i = 0; i < count; ++i) {
        std::uint32_t l;
        std::memcpy(&l, lengths + 4 * std::uint64_t{i}, 4);
        if (l > room - at) {
            throw parse_error(4 + 4 * std::uint64_t{i}, "length past the end of the file",
                              path.string());
        }
        out.index[i] = std::string_view(data + at, l);
        at += l;
    }
    return out;
}

} // namespace fastread::string_table::baseline

#endif // FASTREAD_BENCH_BASELINES_STRING_TABLE_FORMATS_HPP
