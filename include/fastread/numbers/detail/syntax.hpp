// The public header first: number_options is defined there.
#include "../../numbers.hpp"
#ifndef FASTREAD_NUMBERS_DETAIL_SYNTAX_HPP
#define FASTREAD_NUMBERS_DETAIL_SYNTAX_HPP

// How a numbers call reads its text, made once from its number_options: the class of each
// byte (a 256-entry table), the line rules, and how tokens are spelled before conversion.

#include <cstddef>
#include <string>
#include <string_view>

#include "../../result.hpp"

namespace fastread::detail {

enum class byte_class : unsigned char {
    token,   ///< part of a number (or of what fails to be one)
    pad,     ///< whitespace that is not a separator: skipped around a number
    blank,   ///< a whitespace separator: runs of them are one separation
    field,   ///< a separator that is not whitespace: exactly one between two numbers
    newline, ///< LF: ends a line
    comment, ///< starts a comment that runs to the end of its line
};

/// How a numbers call reads its text: the byte classes and the line rules.
struct number_syntax {
    byte_class classes[256];
    std::size_t columns = 0;    ///< numbers per line that has any; 0: any count
    std::size_t skip_lines = 0; ///< lines skipped whole at the start
    std::size_t max_rows = 0;   ///< lines with numbers read before the scan stops; 0: all
    /// Whitespace alone separates, any count per line: integers may go through the
    /// decimal-list kernel (scan/decimal_list.hpp) many at a time.
    bool bulk = false;
    /// Some whitespace is not a separator (it may stand between two numbers that then
    /// lack one).
    bool pads = false;
    /// A short line's missing columns get `fill` (number_options::ragged_fill).
    bool ragged = false;
    double fill = 0;
    /// Tokens are converted after `spelling` maps their bytes (a decimal comma to '.', a
    /// '.' to a byte no number holds, Fortran's D to E); otherwise as they are.
    bool respell = false;
    char decimal = '.';
    char spelling[256];

    constexpr bool is_token(char c) const noexcept {
        return classes[static_cast<unsigned char>(c)] == byte_class::token;
    }
};

constexpr bool is_c_space(unsigned char c) noexcept {
    return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

/// The syntax of `options` (separators, comment, skip_lines, max_rows, ragged_fill,
/// decimal, fortran_exponents) for `columns` numbers per line (0: any), or the reason the
/// options cannot be used together (a byte that belongs to numbers as a separator or
/// comment, the comment byte among the separators, a decimal separator that separates,
/// ragged_fill without columns).
inline result<number_syntax> make_number_syntax(const number_options& options,
                                                std::size_t columns) {
    const std::string_view separators = options.separators;
    const char comment = options.comment;
    number_syntax s{};
    for (unsigned c = 0; c < 256; ++c) {
        s.classes[c] =
            is_c_space(static_cast<unsigned char>(c)) ? byte_class::pad : byte_class::token;
        s.spelling[c] = static_cast<char>(c);
    }
    auto number_byte = [](unsigned char c) {
        return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
               c == '+' || c == '-' || c == '.' || c == '(' || c == ')' || c == '_';
    };
    if (options.decimal != '.' && options.decimal != ',') {
        return invalid_argument_value("number_options: decimal must be '.' or ','");
    }
    for (const char ch : separators) {
        const auto c = static_cast<unsigned char>(ch);
        if (number_byte(c) || ch == options.decimal) {
            return invalid_argument_value("number_options: separator '" + std::string(1, ch) +
                                          "' can be part of a number");
        }
        s.classes[c] = is_c_space(c) ? byte_class::blank : byte_class::field;
    }
    s.classes[static_cast<unsigned char>('\n')] = byte_class::newline;
    if (comment != 0) {
        const auto c = static_cast<unsigned char>(comment);
        if (number_byte(c) || c == '\n' || comment == options.decimal ||
            separators.find(comment) != std::string_view::npos) {
            return invalid_argument_value("number_options: comment byte '" +
                                          std::string(1, comment) +
                                          "' is a separator, a line feed or part of a number");
        }
        s.classes[c] = byte_class::comment;
    }
    if (options.ragged_fill && columns == 0) {
        return invalid_argument_value("number_options: ragged_fill needs columns (or "
                                      "columns<T...>): the count a short line is filled to");
    }
    s.skip_lines = options.skip_lines;
    s.columns = columns;
    s.max_rows = options.max_rows;
    s.ragged = options.ragged_fill.has_value();
    s.fill = options.ragged_fill.value_or(0.0);
    s.decimal = options.decimal;
    if (options.decimal == ',') {
        s.spelling[static_cast<unsigned char>(',')] = '.';
        s.spelling[static_cast<unsigned char>('.')] = '!'; // a byte no number holds
        s.respell = true;
    }
    if (options.fortran_exponents) {
        s.spelling[static_cast<unsigned char>('D')] = 'E';
        s.spelling[static_cast<unsigned char>('d')] = 'e';
        s.respell = true;
    }
    // The kernel separates at every whitespace byte, at nothing else, and reads lines of
    // any count of numbers without stopping at one.
    s.bulk = columns == 0 && s.max_rows == 0 && !s.respell;
    for (unsigned c = 0; c < 256; ++c) {
        const byte_class k = s.classes[c];
        if (k == byte_class::field || k == byte_class::pad) {
            s.bulk = false;
        }
        s.pads |= k == byte_class::pad;
    }
    return s;
}

} // namespace fastread::detail

#endif // FASTREAD_NUMBERS_DETAIL_SYNTAX_HPP
