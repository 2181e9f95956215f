// The public header first: number_options is defined there (it includes this one at its
// end, through path.hpp).
#include "../../numbers.hpp"
#ifndef FASTREAD_NUMBERS_DETAIL_PARSE_HPP
#define FASTREAD_NUMBERS_DETAIL_PARSE_HPP

// numbers() and columns() over a file or a byte source: the sinks that store what the
// scanner converts, the stream from any source, and a cached regular file cut at line
// boundaries into slices that threads read with pread(2) and scan, joined in file order.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "../../detail/file_shrank.hpp"
#include "../../detail/huge_pages.hpp"
#include "../../detail/input_plan.hpp"
#include "../../detail/parallel.hpp"
#include "../../detail/policy.hpp"
#include "../../detail/posix.hpp"
#include "../../detail/residency.hpp"
#include "../../detail/rw.hpp"
#include "../../detail/thread_limit.hpp"
#include "../../io.hpp"
#include "../../result.hpp"
#include "../../scan/decimal_list.hpp"
#include "../../source/byte_source.hpp"
#include "../../source/detail/file_source.hpp"
#include "../../source/detail/file_stream.hpp"
#include "../../source/read_source.hpp"
#include "scanner.hpp"

namespace fastread::detail {

/// Stores each number in one vector.
template <class T>
struct vector_sink {
    std::vector<T>* out;

    /// Integers go through the decimal-list kernel where the syntax allows.
    static constexpr bool has_bulk = std::is_integral_v<T>;

    /// Converts with the P3 kernel the whole whitespace-separated tokens of up to 5 digits
    /// (3 for 8-bit T) at *pos that fit in T; returns how many it appended (see
    /// scan::decimal_list_fn for where *pos stops).
    std::size_t bulk(const char** pos, const char* end) {
        if constexpr (has_bulk) {
            using value = std::conditional_t<sizeof(T) == 1, std::uint8_t, std::uint16_t>;
            constexpr auto most = static_cast<std::uint32_t>(
                std::min<std::uint64_t>(std::numeric_limits<T>::max(), 65535));
            static const scan::decimal_list_fn<value> kernel =
                scan::decimal_list_for<value>(scan::active_level());
            std::size_t total = 0;
            for (;;) {
                std::size_t n = 0;
                if constexpr (std::is_same_v<T, value>) {
                    // The kernel writes straight into the vector (its room is reserved).
                    const std::size_t at = out->size();
                    out->resize(at + 1024);
                    n = kernel(pos, end, out->data() + at, 1024, most);
                    out->resize(at + n);
                } else {
                    value scratch[1024];
                    n = kernel(pos, end, scratch, 1024, most);
                    out->insert(out->end(), scratch, scratch + n);
                }
                total += n;
                if (n < 1024) {
                    return total;
                }
            }
        } else {
            (void)pos, (void)end;
            return 0;
        }
    }

    [[gnu::always_inline]] const char* put(std::size_t, const char* p, const char* end,
                                           number_status& st) {
        T v{};
        const char* q = convert_number(p, end, v, st);
        if (st == number_status::ok) {
            out->push_back(v);
        }
        return q;
    }
    void fill(std::size_t, double v) { out->push_back(static_cast<T>(v)); }
    /// Whether `v` can fill a column of this sink (fill_fits of its type).
    static bool fills(double v) noexcept { return fill_fits<T>(v); }
    std::string reason(std::size_t, number_status st, const char* p, const char* e) const {
        return token_reason<T>(st, p, e);
    }
};

/// Stores the number of column c in the c-th vector, converted to the c-th type.
template <class... T>
struct columns_sink {
    std::tuple<std::vector<T>...>* out;

    static constexpr bool has_bulk = false;
    std::size_t bulk(const char**, const char*) { return 0; }

    [[gnu::always_inline]] const char* put(std::size_t column, const char* p, const char* end,
                                           number_status& st) {
        return put_at(column, p, end, st, std::index_sequence_for<T...>{});
    }
    std::string reason(std::size_t column, number_status st, const char* p, const char* e) const {
        return reason_at(column, st, p, e, std::index_sequence_for<T...>{});
    }
    void fill(std::size_t column, double v) { fill_at(column, v, std::index_sequence_for<T...>{}); }
    static bool fills(double v) noexcept { return (fill_fits<T>(v) && ...); }

  private:
    template <std::size_t... I>
    [[gnu::always_inline]] const char* put_at(std::size_t column, const char* p, const char* end,
                                              number_status& st, std::index_sequence<I...>) {
        const char* q = p;
        (void)((column == I ? (q = vector_sink<T>{&std::get<I>(*out)}.put(0, p, end, st), true)
                            : false) ||
               ...);
        return q;
    }
    template <std::size_t... I>
    void fill_at(std::size_t column, double v, std::index_sequence<I...>) {
        (void)((column == I ? (std::get<I>(*out).push_back(static_cast<T>(v)), true) : false) ||
               ...);
    }
    template <std::size_t... I>
    std::string reason_at(std::size_t column, number_status st, const char* p, const char* e,
                          std::index_sequence<I...>) const {
        std::string r;
        (void)((column == I ? (r = token_reason<T>(st, p, e), true) : false) || ...);
        return r;
    }
};

/// The sink type that fills an `R` (std::vector<T> or std::tuple<std::vector<T>...>).
template <class R>
struct sink_of;
template <class T>
struct sink_of<std::vector<T>> {
    using type = vector_sink<T>;
    static constexpr std::size_t columns = 0;
};
template <class... T>
struct sink_of<std::tuple<std::vector<T>...>> {
    using type = columns_sink<T...>;
    static constexpr std::size_t columns = sizeof...(T);
};

/// Appends `from` to `to` (each column to its column).
template <class T>
void append_numbers(std::vector<T>& to, std::vector<T>&& from) {
    if (to.empty()) {
        to = std::move(from);
    } else {
        to.insert(to.end(), from.begin(), from.end());
    }
}
template <class... T>
void append_numbers(std::tuple<std::vector<T>...>& to, std::tuple<std::vector<T>...>&& from) {
    std::apply(
        [&](std::vector<T>&... dst) {
            std::apply([&](std::vector<T>&... src) { (append_numbers(dst, std::move(src)), ...); },
                       from);
        },
        to);
}

/// Tokens per byte in the window [p, end) under `syntax` (an estimate for reserving).
inline double token_density(const char* p, const char* end, const number_syntax& syntax) {
    std::size_t tokens = 0;
    for (const char* c = p; c != end; ++c) {
        tokens += syntax.is_token(*c) && (c == p || !syntax.is_token(c[-1]));
    }
    return end == p ? 0.0 : static_cast<double>(tokens) / static_cast<double>(end - p);
}

/// Reserves room for about `count` numbers (spread over the columns; big ones advised to
/// take huge pages).
template <class T>
void reserve_numbers(std::vector<T>& v, std::size_t count) {
    reserve_filled(v, count);
}
template <class... T>
void reserve_numbers(std::tuple<std::vector<T>...>& t, std::size_t count) {
    std::apply([&](std::vector<T>&... v) { (reserve_filled(v, count / sizeof...(T) + 1), ...); },
               t);
}

/// How many numbers `r` holds.
template <class T>
std::size_t count_numbers(const std::vector<T>& v) {
    return v.size();
}
template <class... T>
std::size_t count_numbers(const std::tuple<std::vector<T>...>& t) {
    return std::apply([](const std::vector<T>&... v) { return (v.size() + ...); }, t);
}

/// The numbers of `source`, chunk by chunk. `file` names the input in errors. With the
/// input's size (`size_hint`, bytes; 0: unknown), the result is reserved after the first
/// chunk for what its density promises over the whole input (10 % more), so that it does
/// not grow by copying.
template <class R, byte_source Source>
result<R> numbers_from_stream(Source& source, const number_syntax& syntax, const std::string& file,
                              std::uint64_t size_hint = 0, const R& shape = R()) {
    R out = shape;
    typename sink_of<R>::type sink{&out};
    number_stream<typename sink_of<R>::type> stream(syntax, sink);
    std::uint64_t offset = 0;
    input_head head;
    auto next = [&] {
        if constexpr (reporting_source<Source>) {
            return source.try_next();
        } else {
            return source.next();
        }
    };
    // The error, a binary format named if the input starts with its signature (the head
    // completed from the source first, so that the message is the same for any chunks).
    auto failed = [&] {
        number_failure f = stream.failure();
        if (at_format_signature(f)) {
            for (std::span<const char> more; !head.full() && !(more = next()).empty();) {
                head.add(more.data(), more.data() + more.size());
            }
            name_format(f, head);
        }
        return number_error(f, file);
    };
    for (;;) {
        const std::span<const char> chunk = next();
        if (chunk.empty()) {
            break;
        }
        head.add(chunk.data(), chunk.data() + chunk.size());
        if (!stream.feed(chunk.data(), chunk.data() + chunk.size(), offset)) {
            return failed();
        }
        if (stream.done()) {
            return out; // max_rows read: the rest of the input is not
        }
        if (offset == 0 && size_hint > chunk.size()) {
            const double density =
                static_cast<double>(count_numbers(out)) / static_cast<double>(chunk.size()) * 1.1;
            reserve_numbers(
                out, static_cast<std::size_t>(static_cast<double>(size_hint) * density) + 64);
        }
        offset += chunk.size();
    }
    if constexpr (reporting_source<Source>) {
        if (source.error().code()) {
            return source.error();
        }
    }
    if (!stream.finish(offset)) {
        return failed();
    }
    return out;
}

/// The input offset after the first `lines` lines of `head` (the start of the file);
/// nothing if they are not all there.
inline std::optional<std::uint64_t> offset_after_lines(std::span<const char> head,
                                                       std::size_t lines) {
    std::size_t at = 0;
    for (std::size_t i = 0; i < lines; ++i) {
        const char* nl =
            static_cast<const char*>(std::memchr(head.data() + at, '\n', head.size() - at));
        if (nl == nullptr) {
            return std::nullopt;
        }
        at = static_cast<std::size_t>(nl - head.data()) + 1;
    }
    return at;
}

/// The offset just after the first LF at or after `from` in the file open on `fd`, looked
/// for in 64 KiB; nothing if there is none there.
inline std::optional<std::uint64_t> line_start_after(int fd, std::uint64_t from,
                                                     std::uint64_t size) {
    const std::size_t want =
        static_cast<std::size_t>(std::min<std::uint64_t>(size - from, 64 << 10));
    std::string window(want, '\0');
    error err;
    const std::size_t got = pread_full(fd, window.data(), want, from, {}, err);
    const std::size_t nl = window.find('\n');
    if (nl == std::string::npos || nl >= got) {
        return std::nullopt;
    }
    return from + nl + 1;
}

/// The numbers of `file` (sized, cached) scanned in `threads` slices that start at line
/// starts, each read by its own thread through slice_reads::read_through; joined in file
/// order; the first error in file order wins, its line counted over the slices before it.
/// Nothing, having read nothing but the head and a few windows, when the header lines or a
/// line start near a cut are not found.
template <class R>
std::optional<result<R>> numbers_in_file_slices(input_file& file, unsigned threads,
                                                const number_syntax& syntax, const R& shape) {
    const std::uint64_t size = file.size();
    const std::filesystem::path& path = file.path();
    const std::span<const char> head = file.head(plan_head_bytes);
    const std::optional<std::uint64_t> body = offset_after_lines(head, syntax.skip_lines);
    if (!body || *body >= size) {
        return std::nullopt;
    }
    std::vector<std::uint64_t> cuts{*body};
    for (unsigned t = 1; t < threads; ++t) {
        const std::uint64_t target = *body + (size - *body) / threads * t;
        const std::optional<std::uint64_t> cut =
            target > cuts.back() ? line_start_after(file.fd(), target, size) : std::nullopt;
        if (!cut || *cut >= size) {
            return std::nullopt;
        }
        cuts.push_back(*cut);
    }
    cuts.push_back(size);

    using sink_type = typename sink_of<R>::type;
    struct slice {
        R out;
        number_failure failure;
        std::uint64_t lines = 0;
    };
    std::vector<slice> slices(threads);
    for (slice& s : slices) {
        s.out = shape;
    }
    {
        // Room for what the head promises past the skipped lines (10 % more), so that no
        // vector grows by copying; slice 0 holds them all in the end.
        const std::size_t from =
            static_cast<std::size_t>(std::min<std::uint64_t>(*body, head.size()));
        const double density =
            token_density(head.data() + from, head.data() + head.size(), syntax) * 1.1;
        for (unsigned t = 0; t < threads; ++t) {
            const std::uint64_t bytes = t == 0 ? size - *body : cuts[t + 1] - cuts[t];
            reserve_numbers(slices[t].out,
                            static_cast<std::size_t>(static_cast<double>(bytes) * density) + 64);
        }
    }
    slice_reads reads(file, threads);
    in_slices(threads, threads, [&](unsigned, std::size_t first, std::size_t last) {
        for (std::size_t t = first; t < last; ++t) {
            slice& s = slices[t];
            sink_type sink{&s.out};
            number_stream<sink_type> stream(syntax, sink, /*skip=*/false,
                                            /*input_start=*/cuts[t] == 0);
            const auto u = static_cast<unsigned>(t);
            bool ok = true;
            reads.read_through(
                u, cuts[t], cuts[t + 1], [&](const char* p, const char* end, std::uint64_t at) {
                    ok = stream.feed(p, end, at - static_cast<std::uint64_t>(end - p));
                    return ok;
                });
            ok = ok && stream.finish(reads.reached(u));
            if (!ok) {
                s.failure = stream.failure();
            }
            s.lines = stream.scanner().lines();
        }
    });

    // In file order: a read error, a slice whose read came up short (the file shrank), or
    // the slice's own error; a slice the parse stopped early is not a shrink.
    std::uint64_t first_line = 1 + syntax.skip_lines;
    for (unsigned t = 0; t < threads; ++t) {
        slice& s = slices[t];
        if (reads.read_error(t).code()) {
            return result<R>(reads.read_error(t));
        }
        if (reads.ended_early(t)) {
            return result<R>(file_shrank_error(path, UINT64_MAX, reads.reached(t)));
        }
        if (s.failure) {
            input_head start;
            start.add(head.data(), head.data() + head.size());
            name_format(s.failure, start);
            return result<R>(number_error(s.failure, path.string(), first_line));
        }
        first_line += s.lines;
    }
    R out = std::move(slices[0].out);
    for (unsigned t = 1; t < threads; ++t) {
        append_numbers(out, std::move(slices[t].out));
    }
    return result<R>(std::move(out));
}

/// numbers() and columns() of the file at `path`, opened once (input_file): in slices on
/// the threads when it is a cached regular file of 2 MiB or more read (not mapped), else
/// streamed (file_source, from the same descriptor).
template <class R>
result<R> numbers_from_file(const std::filesystem::path& path, const number_syntax& syntax,
                            io_mode io, const R& shape = R()) {
    result<input_file> opened = input_file::open(path);
    if (!opened) {
        return opened.error();
    }
    input_file& file = *opened;
    if (!file.info().regular) {
        result<file_stream> source = stream_file(file);
        if (!source) {
            return source.error();
        }
        return numbers_from_stream<R>(*source, syntax, path.string(), 0, shape);
    }
    if (io == io_mode::read && syntax.max_rows == 0) {
        if (const unsigned threads = file.slice_threads(file.size(), number_bytes_per_thread,
                                                        2 * number_bytes_per_thread);
            threads > 1) {
            if (std::optional<result<R>> r =
                    numbers_in_file_slices<R>(file, threads, syntax, shape)) {
                return std::move(*r);
            }
        }
    }
    const std::uint64_t size = file.size();
    result<file_source> source = file_source::try_adopt(std::move(file), io);
    if (!source) {
        return source.error();
    }
    return numbers_from_stream<R>(*source, syntax, path.string(), size, shape);
}

} // namespace fastread::detail

#endif // FASTREAD_NUMBERS_DETAIL_PARSE_HPP
