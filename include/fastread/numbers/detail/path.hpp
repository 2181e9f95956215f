// The public header first: it includes this one at its end, after what this one uses.
#include "../../numbers.hpp"
#ifndef FASTREAD_NUMBERS_DETAIL_PATH_HPP
#define FASTREAD_NUMBERS_DETAIL_PATH_HPP

/// @file
/// numbers(path) and columns(path): header-only (included by numbers.hpp), or compiled once
/// in src/fastread.cpp for fastread::compiled (FASTREAD_SEPARATE_COMPILATION: try_numbers
/// for every number type, columns<T...> through try_columns_file).

#include <filesystem>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "entry.hpp"

namespace fastread {

template <class T>
requires detail::is_number_type<T> result<std::vector<T>>
try_numbers(const std::filesystem::path& path, number_options options) {
    detail::check_number_type<T>();
    detail::check_number_conversion<T>();
    return detail::try_numbers_file<std::vector<T>>(path, options);
}

template <class... T>
result<std::tuple<std::vector<T>...>> try_columns(const std::filesystem::path& path,
                                                  number_options options) {
    static_assert(sizeof...(T) > 0, "fastread::columns needs at least one column type");
    (detail::check_number_type<T>(), ...);
    (detail::check_number_conversion<T>(), ...);
    return detail::try_numbers_file<std::tuple<std::vector<T>...>>(path, options);
}

} // namespace fastread

// columns<T...>(path)'s compiled core, made in the compiled library only (header-only
// columns<T...> parse into their tuple directly).
#if defined(FASTREAD_BUILDING_LIBRARY) && FASTREAD_BUILDING_LIBRARY
#include "column_set_sink.hpp"

namespace fastread {
namespace detail {
result<column_set> try_columns_file(const std::filesystem::path& path, number_options options,
                                    column_set shape) {
    const std::size_t count = shape.columns.size();
    if (options.columns != 0 && options.columns != count) {
        return invalid_argument_value("columns: number_options::columns is " +
                                      std::to_string(options.columns) + ", the call reads " +
                                      std::to_string(count) + " columns");
    }
    options.columns = count;
    return try_numbers_file<column_set>(path, options, shape);
}
} // namespace detail
} // namespace fastread
#endif

#endif // FASTREAD_NUMBERS_DETAIL_PATH_HPP
