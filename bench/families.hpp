#ifndef FASTREAD_BENCH_FAMILIES_HPP
#define FASTREAD_BENCH_FAMILIES_HPP

// The families of fastread-bench. Each family is one file that registers itself here with a
// family_registration at namespace scope: its name, its place among the tables, its --help
// text, its own command-line options, and the function that declares its rows, columns and
// benchmarks. fastread-bench's main() knows no family by name.

#include <cstdint>
#include <string>
#include <vector>

#include "bench_util.hpp"

namespace fastread_bench {

/// An option of one family that takes one value, a whole number of at least 1 (kept in
/// options::values under its name, e.g. "--compare-size").
struct family_option {
    std::string name; ///< e.g. "--compare-size"
    std::string arg;  ///< what the value is, for --help, e.g. "MB"
    std::string help; ///< one line for --help
};

/// A family of fastread-bench.
struct family {
    std::string name; ///< for --family, and the first part of every benchmark name
    int order = 0;    ///< place among the tables (lower first)
    std::string help; ///< the lines of --help that describe it (indented, ending in '\n')
    /// The option naming the family's own input files (e.g. "--ppm": one column each), and
    /// its --help line; empty when there is none. The files are kept in options::files
    /// under the family's name.
    std::string files_option, files_help;
    std::vector<family_option> options;  ///< options that take one value
    void (*declare)(context&) = nullptr; ///< declares the rows, columns and benchmarks
    std::string files_arg = "FILE...";   ///< what follows files_option, for --help
};

/// Every family linked into fastread-bench, in table order.
const std::vector<family>& families();

/// Adds a family to families(); define one at namespace scope in the family's file.
struct family_registration {
    explicit family_registration(family f);
};

/// The value of the family option `name` (a whole number >= 1, checked when parsed), or
/// `fallback` when it was not given.
std::uint64_t option_value(const options& o, const std::string& name, std::uint64_t fallback);

/// The lines family's child processes (`fastread-bench --internal-lines MODE [FILE]`).
int run_internal_lines(int argc, char* argv[]);

} // namespace fastread_bench

#endif
