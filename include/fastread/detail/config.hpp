#ifndef FASTREAD_DETAIL_CONFIG_HPP
#define FASTREAD_DETAIL_CONFIG_HPP

// The separately compiled mode. A project that includes fastread in many translation units
// links the CMake target fastread::compiled (src/fastread.cpp, built once), which defines
// FASTREAD_SEPARATE_COMPILATION=1 for it: the public headers then declare the entry points
// that take a path without their definitions or the file layer's headers (pnm, ppm and pfm
// loads and saves for std::uint8_t and std::uint16_t samples; lines(path); numbers<T>(path)
// for every number type and columns<T...>(path) through a type-erased core; files_equal;
// find_duplicates, act_on_duplicates; string_table::view's opening; read_at<T> and
// update_at<T> by path for any record type, through one core whose record size is known at
// run time). The templates over a byte source come with their own headers (pnm/reader.hpp,
// ppm/reader.hpp, pfm/reader.hpp, lines/stdio.hpp, numbers/source.hpp,
// string_table/writer.hpp), as does positioned_file (records/positioned_file.hpp).
// docs/guide/compiled.md is the user's page.

#ifndef FASTREAD_SEPARATE_COMPILATION
#define FASTREAD_SEPARATE_COMPILATION 0
#endif

// What the compiled library defines out of line, and header-only code inline.
#if defined(FASTREAD_BUILDING_LIBRARY) && FASTREAD_BUILDING_LIBRARY
#define FASTREAD_COMPILED_INLINE
#else
#define FASTREAD_COMPILED_INLINE inline
#endif

// The loads and saves from a path that fastread::compiled holds, declared inside
// namespace fastread::pnm or fastread::ppm (whose image and format they take): `prefix` is
// `extern` where they are used (pnm.hpp, ppm.hpp) and empty where they are made
// (src/fastread.cpp).
#define FASTREAD_DETAIL_PATH_LOADS(prefix)                                                         \
    prefix template image<std::uint8_t> load<std::uint8_t>(const std::filesystem::path&,           \
                                                           load_options);                          \
    prefix template image<std::uint16_t> load<std::uint16_t>(const std::filesystem::path&,         \
                                                             load_options);                        \
    prefix template void save<std::uint8_t>(const std::filesystem::path&,                          \
                                            const image<std::uint8_t>&, format);                   \
    prefix template void save<std::uint16_t>(const std::filesystem::path&,                         \
                                             const image<std::uint16_t>&, format);                 \
    prefix template result<image<std::uint8_t>> try_load<std::uint8_t>(                            \
        const std::filesystem::path&, load_options);                                               \
    prefix template result<image<std::uint16_t>> try_load<std::uint16_t>(                          \
        const std::filesystem::path&, load_options);                                               \
    prefix template result<void> try_save<std::uint8_t>(const std::filesystem::path&,              \
                                                        const image<std::uint8_t>&, format);       \
    prefix template result<void> try_save<std::uint16_t>(const std::filesystem::path&,             \
                                                         const image<std::uint16_t>&, format);

// pnm's own path forms beyond FASTREAD_DETAIL_PATH_LOADS (decodes into a caller's buffer,
// batches), declared inside namespace fastread::pnm.
#define FASTREAD_DETAIL_PNM_PATH_LOADS(prefix)                                                     \
    prefix template header load_into<std::uint8_t>(                                                \
        const std::filesystem::path&, std::span<std::uint8_t>, std::size_t, load_options);         \
    prefix template header load_into<std::uint16_t>(                                               \
        const std::filesystem::path&, std::span<std::uint16_t>, std::size_t, load_options);        \
    prefix template result<header> try_load_into<std::uint8_t>(                                    \
        const std::filesystem::path&, std::span<std::uint8_t>, std::size_t, load_options);         \
    prefix template result<header> try_load_into<std::uint16_t>(                                   \
        const std::filesystem::path&, std::span<std::uint16_t>, std::size_t, load_options);        \
    prefix template std::vector<result<header>> load_batch<std::uint8_t>(                          \
        std::span<const std::filesystem::path>, std::span<std::uint8_t>, load_options);            \
    prefix template std::vector<result<header>> load_batch<std::uint16_t>(                         \
        std::span<const std::filesystem::path>, std::span<std::uint16_t>, load_options);           \
    prefix template result<std::vector<result<header>>> try_load_batch<std::uint8_t>(              \
        std::span<const std::filesystem::path>, std::span<std::uint8_t>, load_options);            \
    prefix template result<std::vector<result<header>>> try_load_batch<std::uint16_t>(             \
        std::span<const std::filesystem::path>, std::span<std::uint16_t>, load_options);

#endif // FASTREAD_DETAIL_CONFIG_HPP
