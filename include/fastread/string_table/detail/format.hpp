#ifndef FASTREAD_STRING_TABLE_DETAIL_FORMAT_HPP
#define FASTREAD_STRING_TABLE_DETAIL_FORMAT_HPP

// The string table's bytes: little-endian loads and stores, the header as written, and the
// writer's output buffer (fastread/string_table.hpp and docs/string-table.md give the
// format).

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <memory>

#include "../../detail/atomic_file.hpp"
#include "../../detail/policy.hpp"
#include "../../detail/rw.hpp"
#include "../format.hpp"
#include "load.hpp"

namespace fastread::detail {

inline void store_u64(unsigned char* p, std::uint64_t v) noexcept {
    if constexpr (std::endian::native == std::endian::big) {
        v = __builtin_bswap64(v);
    }
    std::memcpy(p, &v, sizeof v);
}

inline void store_u16(unsigned char* p, std::uint16_t v) noexcept {
    p[0] = static_cast<unsigned char>(v);
    p[1] = static_cast<unsigned char>(v >> 8);
}

inline void store_u32(unsigned char* p, std::uint32_t v) noexcept {
    for (int i = 0; i < 4; ++i) {
        p[i] = static_cast<unsigned char>(v >> (8 * i));
    }
}

constexpr std::uint64_t align8(std::uint64_t x) noexcept {
    return (x + 7) & ~std::uint64_t{7};
}

/// The header of a table of `count` strings holding `data_size` bytes.
inline std::array<unsigned char, string_table::format::header_size>
make_table_header(std::uint64_t count, std::uint64_t data_size) {
    std::array<unsigned char, string_table::format::header_size> h{};
    std::memcpy(h.data(), string_table::format::magic.data(), string_table::format::magic.size());
    store_u16(h.data() + string_table::format::at_version, string_table::format::major_version);
    store_u16(h.data() + string_table::format::at_minor, string_table::format::minor_version);
    store_u32(h.data() + string_table::format::at_byte_order,
              string_table::format::byte_order_mark);
    const std::uint64_t offsets_at = string_table::format::header_size;
    const std::uint64_t data_at = offsets_at + 8 * (count + 1);
    store_u64(h.data() + string_table::format::at_count, count);
    store_u64(h.data() + string_table::format::at_offsets, offsets_at);
    store_u64(h.data() + string_table::format::at_data, data_at);
    store_u64(h.data() + string_table::format::at_data_size, data_size);
    store_u64(h.data() + string_table::format::at_file_size, data_at + data_size);
    return h;
}

/// Writes through a 1 MiB buffer to an atomic_file.
class buffered_output {
  public:
    /// Writes to `file`; the first error goes to `err`, and nothing is written after it.
    buffered_output(atomic_file& file, error& err)
        : file_(file), err_(err), buffer_(new char[capacity]) {}
    void put(const void* bytes, std::size_t n) {
        const char* p = static_cast<const char*>(bytes);
        if (n >= capacity) {
            flush();
            file_.write(p, n, err_);
            return;
        }
        if (used_ + n > capacity) {
            flush();
        }
        std::memcpy(buffer_.get() + used_, p, n);
        used_ += n;
    }
    void put_u64(std::uint64_t v) {
        unsigned char b[8];
        store_u64(b, v);
        put(b, 8);
    }
    void flush() {
        if (used_ != 0) {
            file_.write(buffer_.get(), used_, err_);
            used_ = 0;
        }
    }

  private:
    static constexpr std::size_t capacity = block_bytes;
    atomic_file& file_;
    error& err_;
    std::unique_ptr<char[]> buffer_;
    std::size_t used_ = 0;
};

} // namespace fastread::detail

#endif // FASTREAD_STRING_TABLE_DETAIL_FORMAT_HPP
