#ifndef FASTREAD_NUMBERS_DETAIL_COLUMN_SET_SINK_HPP
#define FASTREAD_NUMBERS_DETAIL_COLUMN_SET_SINK_HPP

/// @file
/// How the parse (parse.hpp) fills a column_set: its sink and the result operations the
/// slices use. Only the compiled library's translation unit (src/fastread.cpp) includes it.

#include <cstddef>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>

#include "column_set.hpp"
#include "parse.hpp"

namespace fastread::detail {

/// Stores the number of column c in the c-th column of a column_set (the compiled mode's
/// columns<T...>), converted to the type that column holds.
struct column_set_sink {
    column_set* out;

    static constexpr bool has_bulk = false;
    std::size_t bulk(const char**, const char*) { return 0; }

    const char* put(std::size_t column, const char* p, const char* end, number_status& st) {
        return std::visit(
            [&](auto& v) {
                using T = typename std::remove_reference_t<decltype(v)>::value_type;
                return vector_sink<T>{&v}.put(0, p, end, st);
            },
            out->columns[column]);
    }
    void fill(std::size_t column, double v) {
        std::visit(
            [&](auto& c) {
                using T = typename std::remove_reference_t<decltype(c)>::value_type;
                c.push_back(static_cast<T>(v));
            },
            out->columns[column]);
    }
    /// Whether `v` can fill every column of `set`.
    static bool fills(const column_set& set, double v) {
        for (const number_column& c : set.columns) {
            const bool fits = std::visit(
                [&](const auto& col) {
                    using T = typename std::remove_reference_t<decltype(col)>::value_type;
                    return fill_fits<T>(v);
                },
                c);
            if (!fits) {
                return false;
            }
        }
        return true;
    }
    std::string reason(std::size_t column, number_status st, const char* p, const char* e) const {
        return std::visit(
            [&](const auto& v) {
                using T = typename std::remove_reference_t<decltype(v)>::value_type;
                return token_reason<T>(st, p, e);
            },
            out->columns[column]);
    }
};

template <>
struct sink_of<column_set> {
    using type = column_set_sink;
    static constexpr std::size_t columns = 0; // the caller sets number_syntax's
};

inline void append_numbers(column_set& to, column_set&& from) {
    for (std::size_t c = 0; c < to.columns.size(); ++c) {
        std::visit(
            [&](auto& dst) {
                using V = std::remove_reference_t<decltype(dst)>;
                append_numbers(dst, std::move(std::get<V>(from.columns[c])));
            },
            to.columns[c]);
    }
}

inline void reserve_numbers(column_set& set, std::size_t count) {
    for (number_column& c : set.columns) {
        std::visit([&](auto& v) { reserve_filled(v, count / set.columns.size() + 1); }, c);
    }
}

inline std::size_t count_numbers(const column_set& set) {
    std::size_t n = 0;
    for (const number_column& c : set.columns) {
        n += std::visit([](const auto& v) { return v.size(); }, c);
    }
    return n;
}

} // namespace fastread::detail

#endif // FASTREAD_NUMBERS_DETAIL_COLUMN_SET_SINK_HPP
