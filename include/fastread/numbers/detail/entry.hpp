// The public header first: it includes this one at its end, after what this one uses.
#include "../../numbers.hpp"
#ifndef FASTREAD_NUMBERS_DETAIL_ENTRY_HPP
#define FASTREAD_NUMBERS_DETAIL_ENTRY_HPP

/// @file
/// What the entry points of numbers.hpp share: the call setup (options settled, the syntax
/// made) before a file or a source is parsed.

#include <cstddef>
#include <filesystem>
#include <string>

#include "../../detail/call_setup.hpp"
#include "../../detail/thread_limit.hpp"
#include "../../result.hpp"
#include "parse.hpp"

namespace fastread {

namespace detail {

/// The syntax of `options` for a parse into an R shaped as `shape` (its column count and
/// types), or why they cannot be used.
template <class R>
result<number_syntax> syntax_for(const number_options& options, const R& shape = R()) {
    std::size_t columns = options.columns;
    if constexpr (sink_of<R>::columns != 0) {
        if (columns != 0 && columns != sink_of<R>::columns) {
            return invalid_argument_value("columns: number_options::columns is " +
                                          std::to_string(columns) + ", the call reads " +
                                          std::to_string(sink_of<R>::columns) + " columns");
        }
        columns = sink_of<R>::columns;
    }
    if (options.ragged_fill) {
        using sink = typename sink_of<R>::type;
        bool fits = false;
        if constexpr (requires { sink::fills(0.0); }) {
            fits = sink::fills(*options.ragged_fill);
        } else {
            fits = sink::fills(shape, *options.ragged_fill);
        }
        if (!fits) {
            return invalid_argument_value("number_options: ragged_fill " +
                                          std::to_string(*options.ragged_fill) +
                                          " is not a value of every column's type");
        }
    }
    return make_number_syntax(options, columns);
}

template <class R>
result<R> try_numbers_file(const std::filesystem::path& path, const number_options& asked,
                           const R& shape = R()) {
    const result<number_options> settled = settle_call(asked);
    if (!settled) {
        return settled.error();
    }
    const number_options& options = *settled;
    result<number_syntax> syntax = syntax_for<R>(options, shape);
    if (!syntax) {
        return syntax.error();
    }
    const thread_scope threads(options.threads);
    return numbers_from_file<R>(path, *syntax, options.io, shape);
}

template <class R, class Source>
result<R> try_numbers_source(Source& source, const number_options& options) {
    if (const result<number_options> settled = settle_call(options); !settled) {
        return settled.error();
    }
    result<number_syntax> syntax = syntax_for<R>(options);
    if (!syntax) {
        return syntax.error();
    }
    return numbers_from_stream<R>(source, *syntax, std::string());
}

} // namespace detail

} // namespace fastread

#endif // FASTREAD_NUMBERS_DETAIL_ENTRY_HPP
