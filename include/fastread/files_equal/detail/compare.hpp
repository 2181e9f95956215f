// The public header first: it includes this one at its end, after what this one uses.
#include "../../files_equal.hpp"
#ifndef FASTREAD_FILES_EQUAL_DETAIL_COMPARE_HPP
#define FASTREAD_FILES_EQUAL_DETAIL_COMPARE_HPP

/// @file
/// files_equal's definitions: header-only (included by files_equal.hpp), or compiled once in
/// src/fastread.cpp for fastread::compiled (FASTREAD_SEPARATE_COMPILATION). The files are
/// opened by the file layer (detail/input_file.hpp) and read through file_source.

#include "../../detail/call_setup.hpp"
#include "../../detail/policy.hpp"
#include "../../detail/posix.hpp"
#include "../../detail/rw.hpp"
#include "../../detail/thread_limit.hpp"
#include "../../io.hpp"
#include "../../source/detail/file_source.hpp"
#include "../../source/mmap_source.hpp"

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <system_error>

namespace fastread {

namespace detail {

// Reads both descriptors `block` bytes at a time in turn and compares.
inline result<bool> compare_blocks(int fa, int fb, std::size_t block,
                                   const std::filesystem::path& a, const std::filesystem::path& b) {
    std::unique_ptr<char[]> ba(new char[block]);
    std::unique_ptr<char[]> bb(new char[block]);
    fastread::error err;
    for (;;) {
        const std::size_t na = read_full(fa, ba.get(), block, a, err);
        if (err.code()) {
            return err;
        }
        const std::size_t nb = read_full(fb, bb.get(), block, b, err);
        if (err.code()) {
            return err;
        }
        if (na != nb || std::memcmp(ba.get(), bb.get(), na) != 0) {
            return false;
        }
        if (na < block) {
            return true;
        }
    }
}

/// Compares the regular files `fa` and `fb` (the file layer's, of equal sizes at open)
/// through file_source, each read as its plan says. False if they differ or if
/// either changed size during the pass (a shrink the source reports as EIO included); the
/// error of any other read failure.
inline result<bool> compare_file_sources(input_file&& fa, reading_plan plan_a, input_file&& fb,
                                         reading_plan plan_b) {
    const int raw_a = fa.fd(), raw_b = fb.fd(); // open as long as the sources live
    const file_info ia = fa.info(), ib = fb.info();
    const std::filesystem::path a = fa.path(), b = fb.path();
    result<file_source> ra = file_source::try_adopt(std::move(fa), plan_a);
    if (!ra) {
        return ra.error();
    }
    result<file_source> rb = file_source::try_adopt(std::move(fb), plan_b);
    if (!rb) {
        return rb.error();
    }
    file_source& sa = *ra;
    file_source& sb = *rb;
    fastread::error ignored; // a file that cannot be stat'ed any more has changed
    auto changed = [&] {
        return stat_fd(raw_a, a, ignored).size != ia.size ||
               stat_fd(raw_b, b, ignored).size != ib.size;
    };
    std::span<const char> x, y;
    for (;;) {
        if (x.empty()) {
            x = sa.try_next();
        }
        if (y.empty()) {
            y = sb.try_next();
        }
        if (x.empty() || y.empty()) {
            for (const fastread::error* e : {&sa.error(), &sb.error()}) {
                if (e->code()) {
                    if (e->code().value() == EIO && changed()) {
                        return false;
                    }
                    return *e;
                }
            }
            return x.empty() && y.empty() && !changed();
        }
        const std::size_t n = std::min(x.size(), y.size());
        if (std::memcmp(x.data(), y.data(), n) != 0) {
            return false;
        }
        x = x.subspan(n);
        y = y.subspan(n);
    }
}

inline result<bool> compare_maps(int fa, int fb) {
    result<mmap_source> ma = mmap_source::try_open(fa);
    if (!ma) {
        return ma.error();
    }
    result<mmap_source> mb = mmap_source::try_open(fb);
    if (!mb) {
        return mb.error();
    }
    const std::span<const char> x = ma->bytes(), y = mb->bytes();
    return x.size() == y.size() && std::memcmp(x.data(), y.data(), x.size()) == 0;
}

} // namespace detail

FASTREAD_COMPILED_INLINE result<bool> try_files_equal(const std::filesystem::path& a,
                                                      const std::filesystem::path& b,
                                                      compare_options options) {
    if (const result<compare_options> settled = detail::settle_call(options); !settled) {
        return settled.error(); // before either file is opened
    } else {
        options = *settled;
    }
    // The file layer: each file opened once (and fstat'ed), before either is read.
    result<detail::input_file> fa = detail::input_file::open(a);
    if (!fa) {
        return fa.error();
    }
    result<detail::input_file> fb = detail::input_file::open(b);
    if (!fb) {
        return fb.error();
    }
    const detail::file_info ia = fa->info(), ib = fb->info();
    if (ia.device == ib.device && ia.inode == ib.inode) {
        return true;
    }
    const bool sized = ia.regular && ib.regular && ia.size > 0 && ib.size > 0;
    if (ia.regular && ib.regular && ia.size != ib.size) {
        // A /proc file reports size 0 whatever it holds: only trust sizes of 1 byte or more.
        if (sized) {
            return false;
        }
    }
    compare_method method = options.method;
    std::size_t block = options.block_size;
    if (method == compare_method::automatic) {
        // Maps where asked; big cached files read ahead on helper threads; anything else is
        // read in 1 MiB blocks in turn, which matches reading the files one after the other
        // on a disk.
        if (sized) {
            const detail::thread_scope threads(options.threads);
            const detail::reading_plan plan_a =
                detail::plan_reading(options.io, fa->fd(), ia.size, true);
            const detail::reading_plan plan_b =
                plan_a == detail::reading_plan::stream
                    ? plan_a
                    : detail::plan_reading(options.io, fb->fd(), ib.size, true);
            if (plan_b != detail::reading_plan::stream) {
                return detail::compare_file_sources(std::move(*fa), plan_a, std::move(*fb), plan_b);
            }
        }
        method = compare_method::block;
        block = detail::block_bytes;
    }
    if (method == compare_method::mmap && !sized) {
        method = compare_method::block; // an empty or unsized file cannot be mapped
        block = detail::block_bytes;
    }
    if (block == 0) {
        // Whole-file blocks: one read per file, sized from fstat (+1 to see the end).
        block = sized ? static_cast<std::size_t>(ia.size) + 1 : detail::block_bytes;
    }
    switch (method) {
    case compare_method::mmap:
        return detail::compare_maps(fa->fd(), fb->fd());
    case compare_method::automatic:
    case compare_method::block:
        break;
    }
    return detail::compare_blocks(fa->fd(), fb->fd(), block, a, b);
}

FASTREAD_COMPILED_INLINE bool files_equal(const std::filesystem::path& a,
                                          const std::filesystem::path& b, compare_options options) {
    return detail::value_or_throw(try_files_equal(a, b, options));
}

} // namespace fastread

#endif // FASTREAD_FILES_EQUAL_DETAIL_COMPARE_HPP
