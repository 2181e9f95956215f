#ifndef FASTREAD_NUMBERS_DETAIL_COLUMN_SET_HPP
#define FASTREAD_NUMBERS_DETAIL_COLUMN_SET_HPP

/// @file
/// The type-erased columns of columns<T...>(path) in the compiled mode: the compiled core
/// (try_columns_file, src/fastread.cpp) fills a column_set whose columns have the caller's
/// types, and numbers.hpp moves each column out as its std::vector<T>.

#include <utility>
#include <variant>
#include <vector>

namespace fastread::detail {

/// One column of columns<T...> in the compiled mode (src/fastread.cpp parses into these and
/// the header moves each out as its std::vector<T>): its numbers, converted to the type the
/// alternative holds. The alternatives are every type is_number_type admits.
using number_column =
    std::variant<std::vector<signed char>, std::vector<unsigned char>, std::vector<short>,
                 std::vector<unsigned short>, std::vector<int>, std::vector<unsigned>,
                 std::vector<long>, std::vector<unsigned long>, std::vector<long long>,
                 std::vector<unsigned long long>, std::vector<float>, std::vector<double>>;

/// The columns of one call of columns<T...> in the compiled mode, in column order.
struct column_set {
    std::vector<number_column> columns;
};

/// An empty column_set of the types T...: the shape the parse fills.
template <class... T>
column_set column_set_of() {
    column_set set;
    set.columns.reserve(sizeof...(T));
    (set.columns.emplace_back(std::in_place_type<std::vector<T>>), ...);
    return set;
}

} // namespace fastread::detail

#endif // FASTREAD_NUMBERS_DETAIL_COLUMN_SET_HPP
