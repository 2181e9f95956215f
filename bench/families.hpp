#ifndef FASTREAD_BENCH_FAMILIES_HPP
#define FASTREAD_BENCH_FAMILIES_HPP

#include <string>

#include "bench_util.hpp"

namespace fastread_bench {

/// Each family registers its rows, columns and benchmarks (one file per family).
void register_ppm_family(context& ctx);
void register_lines_family(context& ctx);
void register_compare_family(context& ctx);
void register_dupes_family(context& ctx);
void register_random_family(context& ctx);
void register_table_family(context& ctx);

/// The lines family's child processes (`fastread-bench --internal-lines MODE [FILE]`).
int run_internal_lines(int argc, char* argv[]);

/// All families, in table order.
inline void register_families(context& ctx) {
    if (ctx.wants("ppm")) {
        register_ppm_family(ctx);
    }
    if (ctx.wants("lines")) {
        register_lines_family(ctx);
    }
    if (ctx.wants("compare")) {
        register_compare_family(ctx);
    }
    if (ctx.wants("dupes")) {
        register_dupes_family(ctx);
    }
    if (ctx.wants("random")) {
        register_random_family(ctx);
    }
    if (ctx.wants("table")) {
        register_table_family(ctx);
    }
}

/// True for the options that name a family's own input files (--ppm, ...).
inline bool is_file_option(const std::string& option) {
    return option == "--ppm" || option == "--lines" || option == "--dupes";
}

} // namespace fastread_bench

#endif
