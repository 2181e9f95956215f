#ifndef FASTREAD_NUMBERS_DETAIL_NUMBER_TYPE_HPP
#define FASTREAD_NUMBERS_DETAIL_NUMBER_TYPE_HPP

/// @file
/// The number types numbers() and columns() read: what the declarations of numbers.hpp
/// need, without the scanner.

#include <cstddef>
#include <type_traits>

namespace fastread::detail {

/// The types numbers() converts to: the standard signed and unsigned integer types (not
/// bool, not the character types), float and double.
template <class T>
inline constexpr bool is_number_type = (std::is_integral_v<T> && !std::is_same_v<T, bool> &&
                                        !std::is_same_v<T, char> && !std::is_same_v<T, wchar_t> &&
                                        !std::is_same_v<T, char8_t> &&
                                        !std::is_same_v<T, char16_t> &&
                                        !std::is_same_v<T, char32_t>) ||
                                       std::is_same_v<T, float> || std::is_same_v<T, double>;

/// Fails to compile, with a message, for a T that numbers() does not read.
template <class T>
constexpr void check_number_type() {
    static_assert(is_number_type<T>, "fastread::numbers reads the standard integer types "
                                     "(not bool or the character types), float and double");
}

} // namespace fastread::detail

#endif // FASTREAD_NUMBERS_DETAIL_NUMBER_TYPE_HPP
