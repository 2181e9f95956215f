#ifndef FASTREAD_BENCH_BASELINES_FSEEK_RECORDS_HPP
#define FASTREAD_BENCH_BASELINES_FSEEK_RECORDS_HPP

/// @file
/// The random-records article's (docs/articles.md) programs, kept as baselines: records read, or
/// read, incremented and written back, with `fseek` + `fread`/`fwrite` at each position, turning
/// its four dials (positions sorted or not, stdio buffer or `setvbuf(_IONBF)`, `SEEK_SET`
/// or `SEEK_CUR`, mode "rb" or "rb+"), for fastread-bench's random family. The records go
/// back to the caller in the caller's order either way, so the sorted rows pay for
/// remembering that order, as fastread's own do.

#include <fastread/detail/posix.hpp>
#include <fastread/detail/stdio.hpp>
#include <fastread/error.hpp>
#include <fastread/records/detail/record_plan.hpp>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <system_error>
#include <type_traits>

namespace fastread {

namespace records::baseline {

/// How the article's program seeks before each record.
enum class whence {
    set,          ///< fseek(offset, SEEK_SET) before the read and before the write
    cur,          ///< fseek(distance, SEEK_CUR) from where the last read or write left off
    set_then_cur, ///< updates: SEEK_SET before the read, SEEK_CUR (-sizeof(T)) before the write
};

/// The article's dials.
struct fseek_options {
    bool sorted = true;           ///< visit the positions in file order
    bool buffered = true;         ///< stdio's buffer; false: setvbuf(_IONBF) right after fopen
    whence seek = whence::set;    ///< see whence
    bool read_write_mode = false; ///< reads: open "rb+" instead of "rb" (updates always "rb+")
};

/// fseek to byte `offset` as the article's dial says: SEEK_CUR by the distance from `at`
/// (where the last read or write left the stream), else SEEK_SET. Returns fseek's result.
inline int seek_to(std::FILE* f, std::uint64_t offset, std::uint64_t at, whence w) {
    return w == whence::cur
               ? std::fseek(f, static_cast<long>(offset) - static_cast<long>(at), SEEK_CUR)
               : std::fseek(f, static_cast<long>(offset), SEEK_SET);
}

/// The article's reader on an open stream: for each visit, fseek then fread one T into
/// out[pos]. Throws std::system_error (errno, path) if a seek or read fails.
template <class T>
void fseek_read(std::FILE* f, std::span<const std::uint64_t> indices, std::span<T> out,
                const fseek_options& options, const std::filesystem::path& path) {
    static_assert(std::is_trivially_copyable_v<T>);
    const std::vector<detail::record_ref> order = detail::visit_order(indices, options.sorted);
    std::uint64_t at = 0; // stream position after the last read
    for (const detail::record_ref& r : order) {
        const std::uint64_t offset = r.index * sizeof(T);
        const int rc = seek_to(f, offset, at, options.seek);
        if (rc != 0) {
            detail::throw_system_error(errno, "fseek", path);
        }
        if (std::fread(&out[r.pos], sizeof(T), 1, f) != 1) {
            detail::throw_system_error(std::ferror(f) ? errno : EIO, "fread", path);
        }
        at = offset + sizeof(T);
    }
}

/// The article's updater on an open "rb+" stream: for each visit, fseek, fread, fn, fseek
/// back, fwrite. Throws update_error with the updates written so far if a call fails.
template <class T, class F>
void fseek_update(std::FILE* f, std::span<const std::uint64_t> indices, F&& fn,
                  const fseek_options& options, const std::filesystem::path& path) {
    static_assert(std::is_trivially_copyable_v<T>);
    const std::vector<detail::record_ref> order = detail::visit_order(indices, options.sorted);
    std::uint64_t at = 0;
    std::size_t applied = 0;
    for (const detail::record_ref& r : order) {
        const std::uint64_t offset = r.index * sizeof(T);
        const int rc = seek_to(f, offset, at, options.seek);
        if (rc != 0) {
            detail::throw_update_error(errno, "fseek", path.string(), applied);
        }
        T value;
        if (std::fread(&value, sizeof(T), 1, f) != 1) {
            detail::throw_update_error(std::ferror(f) ? errno : EIO, "fread", path.string(),
                                       applied);
        }
        value = fn(value);
        const int back = options.seek == whence::set
                             ? std::fseek(f, static_cast<long>(offset), SEEK_SET)
                             : std::fseek(f, -static_cast<long>(sizeof(T)), SEEK_CUR);
        if (back != 0) {
            detail::throw_update_error(errno, "fseek", path.string(), applied);
        }
        if (std::fwrite(&value, sizeof(T), 1, f) != 1) {
            detail::throw_update_error(errno, "fwrite", path.string(), applied);
        }
        ++applied;
        at = offset + sizeof(T);
    }
    if (std::fflush(f) != 0) {
        detail::throw_update_error(errno, "fflush", path.string(), 0);
    }
}

/// Opens `path` as the article does (fopen "rb" or "rb+", then setvbuf when unbuffered).
inline detail::unique_file open_stream(const std::filesystem::path& path, bool read_write,
                                       bool buffered) {
    detail::unique_file f(detail::open_stream(path, read_write ? "rb+" : "rb"));
    if (!f) {
        detail::throw_system_error(errno, "fopen", path);
    }
    if (!buffered) {
        std::setvbuf(f.get(), nullptr, _IONBF, 0);
    }
    return f;
}

/// The number of whole T records in the open stream's file.
inline std::uint64_t stream_records(std::FILE* f, std::size_t record_size,
                                    const std::filesystem::path& path) {
    return detail::stat_fd(detail::descriptor_of(f), path).size / record_size;
}

/// The article's read program: out[i] = the T at record index indices[i] of `path`.
/// Throws std::invalid_argument if the spans differ in length, std::out_of_range for an
/// index past the last whole record (nothing read), std::system_error if a call fails.
template <class T>
void fseek_read(const std::filesystem::path& path, std::span<const std::uint64_t> indices,
                std::span<T> out, const fseek_options& options = {}) {
    if (indices.size() != out.size()) {
        throw std::invalid_argument("fseek_read: indices and out differ in length");
    }
    detail::unique_file f = open_stream(path, options.read_write_mode, options.buffered);
    detail::check_indices(indices, stream_records(f.get(), sizeof(T), path), path);
    fseek_read<T>(f.get(), indices, out, options, path);
}

/// The article's update program: record = fn(record) at each index of `path`, in visiting
/// order. Throws std::out_of_range (file untouched), or update_error if a call fails.
template <class T, class F>
void fseek_update(const std::filesystem::path& path, std::span<const std::uint64_t> indices, F&& fn,
                  const fseek_options& options = {}) {
    detail::unique_file f;
    try {
        f = open_stream(path, true, options.buffered);
    } catch (const std::system_error& e) {
        throw update_error(e, 0);
    }
    detail::check_indices(indices, stream_records(f.get(), sizeof(T), path), path);
    fseek_update<T>(f.get(), indices, fn, options, path);
    if (std::fclose(f.release()) != 0) {
        detail::throw_update_error(errno, "fclose", path.string(), 0);
    }
}

} // namespace records::baseline
} // namespace fastread

#endif // FASTREAD_BENCH_BASELINES_FSEEK_RECORDS_HPP
