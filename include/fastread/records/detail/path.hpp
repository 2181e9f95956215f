#ifndef FASTREAD_RECORDS_DETAIL_PATH_HPP
#define FASTREAD_RECORDS_DETAIL_PATH_HPP

// read_at and update_at by path: the file opened for one batch (positioned_file), the
// batch run for a record size known at compile time (header-only: the record type's) or
// at run time (fastread::compiled's core, defined here for src/fastread.cpp alone, with the
// common sizes known at compile time there too).

#include "../../detail/call_setup.hpp"
#include "../../error.hpp"
#include "../../result.hpp"
#include "../options.hpp"
#include "../positioned_file.hpp"
#include "record_layout.hpp"

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>

namespace fastread::detail {

/// What read_at and update_at by path reach of positioned_file.
struct record_access {
    /// read_at by path: the records of `layout` at `indices` of `path` into `out` (`count`
    /// records), or the error (the process settings' first, then open's, then the batch's).
    template <class Layout>
    static result<void> read(const std::filesystem::path& path, Layout layout,
                             std::span<const std::uint64_t> indices, char* out, std::size_t count,
                             const record_options& options) {
        const result<record_options> settled = settle_call(options);
        if (!settled) {
            return settled.error(); // before the file is opened
        }
        result<positioned_file> file = positioned_file::try_open(path);
        if (!file) {
            return file.error();
        }
        return file->read_records(layout, indices, out, count, *settled);
    }

    /// update_at by path: fn applied to the records of `layout` at `indices` of `path`; its
    /// failure, if any (fn's exceptions propagate, nested in an update_error).
    template <class Layout>
    static update_failure update(const std::filesystem::path& path, Layout layout,
                                 std::span<const std::uint64_t> indices, const record_update& fn,
                                 const record_options& options) {
        const result<record_options> settled = settle_call(options);
        if (!settled) {
            return {settled.error(), 0}; // before the file is opened
        }
        result<positioned_file> file = positioned_file::try_open(path, true);
        if (!file) {
            return {file.error(), 0};
        }
        return file->update_records(layout, indices, fn, *settled);
    }
};

#if defined(FASTREAD_BUILDING_LIBRARY) && FASTREAD_BUILDING_LIBRARY
/// `op(layout)` for records of `size` bytes: the sizes of the scalar types (1, 2, 4, 8 and 16
/// bytes) with the size known at compile time, so that each copy of a record is a move
/// (callgrind: 24 % more instructions for int32 records without), any other size at run
/// time.
template <class Op>
decltype(auto) with_record_size(std::size_t size, Op op) {
    switch (size) {
    case 1:
        return op(static_record<1>{});
    case 2:
        return op(static_record<2>{});
    case 4:
        return op(static_record<4>{});
    case 8:
        return op(static_record<8>{});
    case 16:
        return op(static_record<16>{});
    default:
        return op(dynamic_record{size});
    }
}

// fastread::compiled's core (declared in fastread/records.hpp): one copy for every record
// size but those above.
result<void> read_records_file(const std::filesystem::path& path,
                               std::span<const std::uint64_t> indices, std::size_t record_size,
                               void* out, std::size_t count, const record_options& options) {
    return with_record_size(record_size, [&](auto layout) {
        return record_access::read(path, layout, indices, static_cast<char*>(out), count, options);
    });
}

update_failure update_records_file(const std::filesystem::path& path,
                                   std::span<const std::uint64_t> indices, std::size_t record_size,
                                   const record_update& fn, const record_options& options) {
    return with_record_size(record_size, [&](auto layout) {
        return record_access::update(path, layout, indices, fn, options);
    });
}
#endif

} // namespace fastread::detail

#endif // FASTREAD_RECORDS_DETAIL_PATH_HPP
