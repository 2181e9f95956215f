// The public header first: it includes this one after the types this one uses.
#include "../read.hpp"
#ifndef FASTREAD_CSV_DETAIL_TABLE_READ_HPP
#define FASTREAD_CSV_DETAIL_TABLE_READ_HPP

/// @file
/// csv::read's call: the encoding (UTF-16 and Latin-1 transcoded into memory), the dialect
/// and the columns' names (sniffed, or the options'), the keys of the columns read, the
/// job's reading (csv_table_job), the second reading of the columns that became text, and
/// the table.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace fastread::detail {

/// The offset of the first byte of `b` that is not part of valid UTF-8 (RFC 3629: no
/// overlong form, no surrogate, nothing beyond U+10FFFF), or SIZE_MAX.
inline std::size_t csv_invalid_utf8(std::string_view b) noexcept {
    const auto* p = reinterpret_cast<const unsigned char*>(b.data());
    const std::size_t n = b.size();
    std::size_t i = 0;
    while (i < n) {
        if (p[i] < 0x80) {
            ++i;
            continue;
        }
        std::size_t len = 0;
        unsigned char lo = 0x80, hi = 0xBF;
        if (p[i] >= 0xC2 && p[i] <= 0xDF) {
            len = 2;
        } else if (p[i] >= 0xE0 && p[i] <= 0xEF) {
            len = 3;
            lo = p[i] == 0xE0 ? 0xA0 : 0x80;
            hi = p[i] == 0xED ? 0x9F : 0xBF;
        } else if (p[i] >= 0xF0 && p[i] <= 0xF4) {
            len = 4;
            lo = p[i] == 0xF0 ? 0x90 : 0x80;
            hi = p[i] == 0xF4 ? 0x8F : 0xBF;
        } else {
            return i;
        }
        for (std::size_t k = 1; k < len; ++k) {
            if (i + k >= n) {
                return i + k;
            }
            const unsigned char c = p[i + k];
            if (c < (k == 1 ? lo : 0x80) || c > (k == 1 ? hi : 0xBF)) {
                return i + k;
            }
        }
        i += len;
    }
    return SIZE_MAX;
}

/// The errc::invalid_data_byte error of `b`'s first invalid UTF-8 byte (with its line and
/// its 1-based byte column in that line), or none.
inline fastread::error csv_check_utf8(std::string_view b, const std::string& file) {
    const std::size_t at = csv_invalid_utf8(b);
    if (at == SIZE_MAX) {
        return {};
    }
    std::uint64_t line = 1;
    std::size_t line_start = 0;
    for (std::size_t i = 0; i < at; ++i) {
        if (b[i] == '\n' || (b[i] == '\r' && (i + 1 >= b.size() || b[i + 1] != '\n'))) {
            ++line;
            line_start = i + 1;
        }
    }
    const std::uint64_t column = at - line_start + 1;
    char hex[8];
    std::snprintf(hex, sizeof hex, "0x%02X", static_cast<unsigned char>(b[at]));
    const fastread::error e =
        parse_error_value(at,
                          "line " + std::to_string(line) + ", column " + std::to_string(column) +
                              ": byte " + hex + " is not valid UTF-8",
                          file, errc::invalid_data_byte);
    return fastread::error(e.code(), e.message(), e.path(), e.offset(), line, column);
}

/// What is known of the input's columns before they are read: their names and the type
/// each starts at.
struct csv_layout {
    csv::dialect dialect;
    std::vector<std::string> names;
    std::vector<csv_kind> start;
};

/// The layout of `in` from its sniffed dialect (`o.sniff`), else from its header (or first
/// record) read with `o.csv`'s dialect; `settled`: o.csv settled.
inline result<csv_layout> csv_read_layout(csv_input& in, const csv::read_options& o,
                                          const csv::options& settled, const std::string& file) {
    csv_layout l;
    if (o.sniff) {
        result<csv::dialect> d = csv_sniff_input(in, settled.missing);
        if (!d) {
            return d.error();
        }
        l.dialect = std::move(*d);
        for (const csv::column_info& c : l.dialect.columns) {
            l.names.push_back(c.name);
            l.start.push_back(c.values == 0 ? csv_kind::none : csv_kind_of(c.type));
        }
        return l;
    }
    result<csv_dialect> d = csv_dialect_of(settled);
    if (!d) {
        return d.error();
    }
    csv_reader r(*d, in);
    result<csv_head> head = csv_read_head(r, settled, file);
    if (!head) {
        return head.error();
    }
    l.names = head->names;
    if (!settled.header) {
        const csv_step step = r.next();
        if (const fastread::error* e = r.read_error()) {
            return *e;
        }
        if (step == csv_step::failed) {
            return csv_reader_error(r, 1, file, l.names);
        }
        for (std::size_t k = 0; step == csv_step::record && k < r.fields().size(); ++k) {
            l.names.push_back("column_" + std::to_string(k + 1));
        }
    }
    l.start.assign(l.names.size(), csv_kind::none);
    l.dialect.delimiter = settled.delimiter;
    l.dialect.quote = settled.quote;
    l.dialect.escape = settled.escape;
    l.dialect.header = settled.header;
    l.dialect.line_end = "\n";
    return l;
}

/// The keys of the columns `o` reads (select, types) in layout `l`; the invalid_argument
/// error of a name or index not in it.
inline result<std::vector<csv_table_key>>
csv_read_keys(const csv_layout& l, const csv::read_options& o, const std::string& file) {
    auto find = [&](const std::string& name) {
        std::size_t i = 0;
        while (i < l.names.size() && l.names[i] != name) {
            ++i;
        }
        return i;
    };
    const std::string of = file.empty() ? "" : " of " + file;
    std::vector<csv_table_key> keys;
    if (o.select.empty()) {
        for (std::size_t i = 0; i < l.names.size(); ++i) {
            keys.push_back({i, l.start[i], false});
        }
    }
    for (const csv::column_key& k : o.select) {
        const std::size_t i = k.by_name() ? find(k.name()) : k.index();
        if (i >= l.names.size()) {
            return invalid_argument_value(
                "csv::read: " +
                (k.by_name() ? "no column named \"" + k.name() + "\""
                             : "column index " +
                                   (k.index() == SIZE_MAX ? std::string("< 0")
                                                          : std::to_string(k.index())) +
                                   " beyond the " + std::to_string(l.names.size()) + " columns") +
                of);
        }
        keys.push_back({i, l.start[i], false});
    }
    for (const csv::column_type& t : o.types) {
        const std::size_t i = find(t.name);
        if (i == l.names.size()) {
            return invalid_argument_value("csv::read: read_options::types names \"" + t.name +
                                          "\", not a column" + of);
        }
        for (csv_table_key& k : keys) {
            if (k.field == i) {
                k.start = csv_kind_of(t.type);
                k.fixed = true;
            }
        }
    }
    return keys;
}

/// Makes the table of csv::read from the columns read (the private members of column and
/// table are set here only).
struct csv_table_builder {
    /// The table's dialect said to be of UTF-16 text (`bom` 1: LE, 2: BE), read transcoded.
    static void set_utf16(csv::table& t, int bom) noexcept {
        t.dialect_.bom = true;
        t.dialect_.encoding = bom == 1 ? csv::text_encoding::utf16le : csv::text_encoding::utf16be;
    }
    static csv::column make(std::string name, csv_part_column&& p) {
        csv::column c;
        if (p.kind == csv_kind::none) {
            p.convert_to(csv_kind::text);
        }
        c.name_ = std::move(name);
        c.type_ = csv_type_of(p.kind);
        c.size_ = static_cast<std::size_t>(p.size);
        c.missed_ = static_cast<std::size_t>(p.missed);
        c.missing_ = std::move(p.missing);
        if (c.type_ == csv::type::boolean) {
            c.bools_.reset(new bool[p.bools.size() + 1]);
            for (std::size_t i = 0; i < p.bools.size(); ++i) {
                c.bools_[i] = p.bools[i] != 0;
            }
        }
        c.ints_ = std::move(p.ints);
        c.doubles_ = std::move(p.doubles);
        c.days_ = std::move(p.days);
        c.stamps_ = std::move(p.stamps);
        c.text_ = std::move(p.text);
        return c;
    }

    static csv::table make(csv_layout&& l, const std::vector<csv_table_key>& keys,
                           csv_table_part&& part) {
        csv::table t;
        std::vector<csv::column_info> infos;
        for (std::size_t k = 0; k < keys.size(); ++k) {
            csv_part_column& p = part.columns[k];
            csv::column c = make(l.names[keys[k].field], std::move(p));
            t.rows_ = c.size();
            csv::column_info info;
            info.name = c.name();
            info.type = c.type();
            info.values = c.size() - c.missing_count();
            info.missing = c.missing_count();
            infos.push_back(std::move(info));
            t.names_.push_back(c.name());
            t.columns_.push_back(std::move(c));
        }
        t.dialect_ = std::move(l.dialect);
        t.dialect_.columns = std::move(infos);
        return t;
    }
};

/// The keys of the columns of `part` that became text after other values (pending): read
/// again as text; empty when none.
inline std::vector<std::size_t> csv_pending(const csv_table_part& part) {
    std::vector<std::size_t> out;
    for (std::size_t k = 0; k < part.columns.size(); ++k) {
        if (part.columns[k].pending) {
            out.push_back(k);
        }
    }
    return out;
}

/// The columns `pending` of `part` (keys `keys`) replaced by `again`'s (their text, read
/// with the job of those keys fixed as text).
inline void csv_replace_pending(csv_table_part& part, const std::vector<std::size_t>& pending,
                                csv_table_part&& again) {
    for (std::size_t j = 0; j < pending.size() && j < again.columns.size(); ++j) {
        part.columns[pending[j]] = std::move(again.columns[j]);
    }
}

/// The keys of the second reading: `pending`'s fields as fixed text.
inline std::vector<csv_table_key> csv_text_keys(const std::vector<csv_table_key>& keys,
                                                const std::vector<std::size_t>& pending) {
    std::vector<csv_table_key> out;
    for (const std::size_t k : pending) {
        out.push_back({keys[k].field, csv_kind::text, true});
    }
    return out;
}

/// The options csv::read reads with: `settled` with the layout's dialect where sniffed.
inline csv::options csv_read_options(const csv_layout& l, const csv::read_options& o,
                                     const csv::options& settled) {
    return o.sniff ? l.dialect.options(settled) : settled;
}

/// The table of the input whose layout is `l`: its columns read by `read(options,
/// dialect, job)` (a csv_job_input or csv_job_file of the input), and those that became
/// text after other values read again as text.
template <class Read>
result<csv::table> csv_read_with(result<csv_layout>&& l, const csv::read_options& o,
                                 const csv::options& settled, const std::string& file,
                                 Read&& read) {
    if (!l) {
        return l.error();
    }
    const csv::options ro = csv_read_options(*l, o, settled);
    result<csv_dialect> d = csv_dialect_of(ro);
    if (!d) {
        return d.error();
    }
    result<std::vector<csv_table_key>> keys = csv_read_keys(*l, o, file);
    if (!keys) {
        return keys.error();
    }
    csv_table_job job(ro, *d, *keys);
    result<csv_table_part> part = read(ro, *d, job);
    if (!part) {
        return part.error();
    }
    if (const std::vector<std::size_t> pending = csv_pending(*part); !pending.empty()) {
        csv_table_job text_job(ro, *d, csv_text_keys(*keys, pending));
        result<csv_table_part> text = read(ro, *d, text_job);
        if (!text) {
            return text.error();
        }
        csv_replace_pending(*part, pending, std::move(*text));
    }
    return csv_table_builder::make(std::move(*l), *keys, std::move(*part));
}

/// csv::read of bytes in memory (UTF-8, transcoded already), named `file` in errors.
inline result<csv::table> csv_read_bytes(std::string_view bytes, const csv::read_options& o,
                                         const csv::options& settled, const std::string& file) {
    if (o.validate_utf8) {
        if (fastread::error e = csv_check_utf8(bytes, file); e.code()) {
            return e;
        }
    }
    memory_source src(std::span<const char>(bytes.data(), bytes.size()));
    csv_source_input<memory_source> in(src);
    return csv_read_with(csv_read_layout(in, o, settled, file), o, settled, file,
                         [&](const csv::options& ro, const csv_dialect& d, csv_table_job& job) {
                             memory_source s(std::span<const char>(bytes.data(), bytes.size()));
                             csv_source_input<memory_source> again(s);
                             return csv_job_input(again, ro, d, job, file);
                         });
}

/// csv::read of all the bytes of `in` (read into memory, transcoded where the encoding or
/// a UTF-16 BOM says).
inline result<csv::table> csv_read_input(csv_input& in, const csv::read_options& o,
                                         const std::string& file) {
    const result<csv::options> settled = settle_call(o.csv);
    if (!settled) {
        return settled.error();
    }
    std::string bytes;
    std::size_t got = 0;
    for (;;) {
        if (bytes.size() - got < (std::size_t{1} << 16)) {
            bytes.resize(std::max<std::size_t>(bytes.size() * 2, std::size_t{1} << 20));
        }
        const std::size_t n = in.read(bytes.data() + got, bytes.size() - got);
        if (n == 0) {
            break;
        }
        got += n;
    }
    if (const fastread::error* e = in.read_error()) {
        return *e;
    }
    bytes.resize(got);
    const int bom = csv_utf16_bom(bytes);
    if (bom != 0 || o.encoding == csv::encoding::latin1) {
        result<std::string> utf8 =
            csv_transcode(bytes, bom, o.encoding == csv::encoding::latin1, file);
        if (!utf8) {
            return utf8.error();
        }
        bytes = std::move(*utf8);
    }
    result<csv::table> t = csv_read_bytes(bytes, o, *settled, file);
    if (t && bom != 0) {
        csv_table_builder::set_utf16(*t, bom);
    }
    return t;
}

/// csv::read(path): a regular UTF-8 file through the file layer (csv_job_file: in slices on
/// threads when big and cached), anything else (a pipe, UTF-16, Latin-1, validate_utf8)
/// read into memory first.
inline result<csv::table> csv_read_path(const std::filesystem::path& path,
                                        const csv::read_options& o) {
    const result<csv::options> settled = settle_call(o.csv);
    if (!settled) {
        return settled.error();
    }
    const std::string name = path.string();
    result<input_file> opened = input_file::open(path);
    if (!opened) {
        return opened.error();
    }
    const std::span<const char> head = opened->sized() ? opened->head(4) : std::span<const char>();
    if (!opened->sized() || o.encoding != csv::encoding::automatic || o.validate_utf8 ||
        csv_utf16_bom(std::string_view(head.data(), head.size())) != 0) {
        result<file_stream> stream = stream_file(*opened);
        if (!stream) {
            return stream.error();
        }
        csv_source_input<file_stream> in(*stream);
        return csv_read_input(in, o, name);
    }
    result<csv_layout> l = [&]() -> result<csv_layout> {
        result<file_stream> stream = stream_file(*opened);
        if (!stream) {
            return stream.error();
        }
        csv_source_input<file_stream> in(*stream);
        return csv_read_layout(in, o, *settled, name);
    }();
    return csv_read_with(std::move(l), o, *settled, name,
                         [&](const csv::options& ro, const csv_dialect& d, csv_table_job& job) {
                             return csv_job_file(path, ro, d, job);
                         });
}

} // namespace fastread::detail

#endif // FASTREAD_CSV_DETAIL_TABLE_READ_HPP
