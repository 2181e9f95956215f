#ifndef FASTREAD_BENCH_BASELINES_COMPARE_METHODS_HPP
#define FASTREAD_BENCH_BASELINES_COMPARE_METHODS_HPP

/// @file
/// The compare article's (docs/articles.md) programs that fastread::files_equal does not
/// offer, kept as baselines for fastread-bench's compare family: `getc` on two `FILE*`, one
/// byte of each in turn (simple-compare), the same with `getc_unlocked`, and each file read
/// once whole before a comparison in blocks (compare-with-extra-read).

#include <fastread/detail/posix.hpp>
#include <fastread/detail/stdio.hpp>
#include <fastread/files_equal.hpp>
#include <fastread/page_cache.hpp>

#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <filesystem>

namespace fastread::compare_baseline {

/// True iff the files at `a` and `b` hold the same bytes, read with `getc` (or, with
/// `unlocked`, `getc_unlocked`) one byte of each in turn until they differ or both end.
/// @throws std::system_error naming the file if it cannot be opened or read.
inline bool compare_getc(const std::filesystem::path& a, const std::filesystem::path& b,
                         bool unlocked) {
    detail::unique_file fa(detail::open_stream(a, "rb"));
    if (!fa) {
        detail::throw_error(detail::os_error(errno, "fopen", a));
    }
    detail::unique_file fb(detail::open_stream(b, "rb"));
    if (!fb) {
        detail::throw_error(detail::os_error(errno, "fopen", b));
    }
    int ca = 0, cb = 0;
    if (unlocked) {
        do {
            ca = detail::getc_unlocked_of(fa.get());
            cb = detail::getc_unlocked_of(fb.get());
        } while (ca == cb && ca != EOF);
    } else {
        do {
            ca = std::getc(fa.get());
            cb = std::getc(fb.get());
        } while (ca == cb && ca != EOF);
    }
    if (std::ferror(fa.get()) != 0) {
        detail::throw_error(detail::os_error(EIO, "getc", a));
    }
    if (std::ferror(fb.get()) != 0) {
        detail::throw_error(detail::os_error(EIO, "getc", b));
    }
    return ca == cb;
}

/// The article's compare-with-extra-read: each regular file read once front to back first
/// (page_cache::preload, which pre-loads the page cache), then files_equal in blocks of
/// `block` bytes (0: each file whole).
/// @throws std::system_error naming the file if it cannot be opened or read.
inline bool compare_preload_then_block(const std::filesystem::path& a,
                                       const std::filesystem::path& b, std::size_t block) {
    for (const std::filesystem::path* p : {&a, &b}) {
        if (std::filesystem::is_regular_file(*p)) { // a pipe would be drained
            page_cache::preload(*p);
        }
    }
    return files_equal(a, b, {compare_method::block, block});
}

} // namespace fastread::compare_baseline

#endif // FASTREAD_BENCH_BASELINES_COMPARE_METHODS_HPP
