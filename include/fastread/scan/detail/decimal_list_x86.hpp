#ifndef FASTREAD_SCAN_DETAIL_DECIMAL_LIST_X86_HPP
#define FASTREAD_SCAN_DETAIL_DECIMAL_LIST_X86_HPP

// The P3 number kernel's x86 classifiers (SSE2, AVX2, AVX-512 VBMI2), each compiled for its
// level with target attributes and chosen at run time (scan/simd_level.hpp).

#include <cstddef>
#include <cstdint>

#include "decimal_block.hpp"

#if FASTREAD_SCAN_X86
#include <immintrin.h>
#endif

namespace fastread::detail {

#if FASTREAD_SCAN_X86
struct classify_sse2 {
    [[gnu::always_inline]] static void run(const char* p, std::uint64_t& digit,
                                           std::uint64_t& space) noexcept {
        // SSE2 has signed byte compares only: shift the ranges to start at -128.
        const __m128i to_digit = _mm_set1_epi8(static_cast<char>(0x80 - '0'));
        const __m128i to_tab = _mm_set1_epi8(static_cast<char>(0x80 - '\t'));
        const __m128i below_10 = _mm_set1_epi8(static_cast<char>(0x80 + 10));
        const __m128i below_5 = _mm_set1_epi8(static_cast<char>(0x80 + 5));
        const __m128i blank = _mm_set1_epi8(' ');
        digit = 0;
        space = 0;
        for (int k = 0; k < 4; ++k) {
            const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * k));
            const __m128i d = _mm_cmplt_epi8(_mm_add_epi8(x, to_digit), below_10);
            const __m128i s = _mm_or_si128(_mm_cmpeq_epi8(x, blank),
                                           _mm_cmplt_epi8(_mm_add_epi8(x, to_tab), below_5));
            digit |= std::uint64_t{static_cast<std::uint16_t>(_mm_movemask_epi8(d))} << (16 * k);
            space |= std::uint64_t{static_cast<std::uint16_t>(_mm_movemask_epi8(s))} << (16 * k);
        }
    }
    /// The bitmaps, and for each position i of the window the value of a token of at most
    /// three digits ending there, modulo 256 (exact when at most 255), and whether that
    /// value exceeds the limit (bit i of `exceed`): hundreds > high_limit, or hundreds ==
    /// high_limit and 10 * tens + ones > low_limit.
    [[gnu::always_inline]] static void values(const char* p, std::uint64_t& digit,
                                              std::uint64_t& space, std::uint64_t& exceed,
                                              unsigned char* out, int high_limit,
                                              int low_limit) noexcept {
        const __m128i to_digit = _mm_set1_epi8(static_cast<char>(0x80 - '0'));
        const __m128i to_tab = _mm_set1_epi8(static_cast<char>(0x80 - '\t'));
        const __m128i below_10 = _mm_set1_epi8(static_cast<char>(0x80 + 10));
        const __m128i below_5 = _mm_set1_epi8(static_cast<char>(0x80 + 5));
        const __m128i blank = _mm_set1_epi8(' ');
        const __m128i zero_char = _mm_set1_epi8('0');
        const __m128i high = _mm_set1_epi8(static_cast<char>(high_limit));
        const __m128i low = _mm_set1_epi8(static_cast<char>(low_limit));
        const __m128i three = _mm_set1_epi8(3);
        __m128i prev_value = _mm_setzero_si128(); // the window starts outside a token
        __m128i prev_digit = _mm_setzero_si128();
        digit = 0;
        space = 0;
        exceed = 0;
        for (int k = 0; k < 4; ++k) {
            const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * k));
            const __m128i is_digit = _mm_cmplt_epi8(_mm_add_epi8(x, to_digit), below_10);
            const __m128i is_space = _mm_or_si128(_mm_cmpeq_epi8(x, blank),
                                                  _mm_cmplt_epi8(_mm_add_epi8(x, to_tab), below_5));
            const __m128i ones = _mm_and_si128(_mm_sub_epi8(x, zero_char), is_digit);
            // The byte before (tens) and two before (hundreds, when the byte between is a
            // digit too); 0 where that byte is no digit.
            const __m128i tens =
                _mm_or_si128(_mm_slli_si128(ones, 1), _mm_srli_si128(prev_value, 15));
            const __m128i hundreds = _mm_and_si128(
                _mm_or_si128(_mm_slli_si128(ones, 2), _mm_srli_si128(prev_value, 14)),
                _mm_or_si128(_mm_slli_si128(is_digit, 1), _mm_srli_si128(prev_digit, 15)));
            // Bytes hold at most 99 here, so 16-bit shifts do not carry across bytes.
            const __m128i pair =
                _mm_add_epi8(ones, _mm_add_epi8(_mm_slli_epi16(tens, 3), _mm_slli_epi16(tens, 1)));
            const __m128i over = _mm_or_si128(
                _mm_cmpgt_epi8(hundreds, high),
                _mm_and_si128(_mm_cmpeq_epi8(hundreds, high), _mm_cmpgt_epi8(pair, low)));
            const __m128i h = _mm_min_epu8(hundreds, three); // 100 * h mod 256, h <= 3
            const __m128i value = _mm_add_epi8(
                pair, _mm_add_epi8(_mm_slli_epi16(h, 6),
                                   _mm_add_epi8(_mm_slli_epi16(h, 5), _mm_slli_epi16(h, 2))));
            _mm_store_si128(reinterpret_cast<__m128i*>(out + 16 * k), value);
            digit |= std::uint64_t{static_cast<std::uint16_t>(_mm_movemask_epi8(is_digit))}
                     << (16 * k);
            space |= std::uint64_t{static_cast<std::uint16_t>(_mm_movemask_epi8(is_space))}
                     << (16 * k);
            exceed |= std::uint64_t{static_cast<std::uint16_t>(_mm_movemask_epi8(over))}
                      << (16 * k);
            prev_value = ones;
            prev_digit = is_digit;
        }
    }
};

// flatten: the shared loop and the classifier are inlined into each kernel, so that the
// classifier's target instructions may be used there.
template <class Value>
[[gnu::flatten]] std::size_t decimal_list_sse2(const char** pos, const char* end, Value* out,
                                               std::size_t max_values,
                                               std::uint32_t max_value) noexcept {
    return decimal_list_bitmap<classify_sse2>(pos, end, out, max_values, max_value);
}

struct classify_avx2 {
    [[gnu::target("avx2")]] static void run(const char* p, std::uint64_t& digit,
                                            std::uint64_t& space) noexcept {
        const __m256i to_digit = _mm256_set1_epi8(static_cast<char>(0x80 - '0'));
        const __m256i to_tab = _mm256_set1_epi8(static_cast<char>(0x80 - '\t'));
        const __m256i below_10 = _mm256_set1_epi8(static_cast<char>(0x80 + 10));
        const __m256i below_5 = _mm256_set1_epi8(static_cast<char>(0x80 + 5));
        const __m256i blank = _mm256_set1_epi8(' ');
        digit = 0;
        space = 0;
        for (int k = 0; k < 2; ++k) {
            const __m256i x = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + 32 * k));
            const __m256i d = _mm256_cmpgt_epi8(below_10, _mm256_add_epi8(x, to_digit));
            const __m256i s =
                _mm256_or_si256(_mm256_cmpeq_epi8(x, blank),
                                _mm256_cmpgt_epi8(below_5, _mm256_add_epi8(x, to_tab)));
            digit |= std::uint64_t{static_cast<std::uint32_t>(_mm256_movemask_epi8(d))} << (32 * k);
            space |= std::uint64_t{static_cast<std::uint32_t>(_mm256_movemask_epi8(s))} << (32 * k);
        }
    }
    /// v shifted up by J bytes across all 32 bytes, prev's last J bytes shifted in.
    template <int J>
    [[gnu::target("avx2"), gnu::always_inline]] static __m256i shift_in(__m256i v,
                                                                        __m256i prev) noexcept {
        const __m256i carry = _mm256_permute2x128_si256(prev, v, 0x21); // prev.hi, v.lo
        return _mm256_alignr_epi8(v, carry, 16 - J);
    }

    /// As classify_sse2::values, 32 bytes per step.
    [[gnu::target("avx2")]] static void values(const char* p, std::uint64_t& digit,
                                               std::uint64_t& space, std::uint64_t& exceed,
                                               unsigned char* out, int high_limit,
                                               int low_limit) noexcept {
        const __m256i to_digit = _mm256_set1_epi8(static_cast<char>(0x80 - '0'));
        const __m256i to_tab = _mm256_set1_epi8(static_cast<char>(0x80 - '\t'));
        const __m256i below_10 = _mm256_set1_epi8(static_cast<char>(0x80 + 10));
        const __m256i below_5 = _mm256_set1_epi8(static_cast<char>(0x80 + 5));
        const __m256i blank = _mm256_set1_epi8(' ');
        const __m256i zero_char = _mm256_set1_epi8('0');
        const __m256i high = _mm256_set1_epi8(static_cast<char>(high_limit));
        const __m256i low = _mm256_set1_epi8(static_cast<char>(low_limit));
        const __m256i three = _mm256_set1_epi8(3);
        __m256i prev_value = _mm256_setzero_si256();
        __m256i prev_digit = _mm256_setzero_si256();
        digit = 0;
        space = 0;
        exceed = 0;
        for (int k = 0; k < 2; ++k) {
            const __m256i x = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + 32 * k));
            const __m256i is_digit = _mm256_cmpgt_epi8(below_10, _mm256_add_epi8(x, to_digit));
            const __m256i is_space =
                _mm256_or_si256(_mm256_cmpeq_epi8(x, blank),
                                _mm256_cmpgt_epi8(below_5, _mm256_add_epi8(x, to_tab)));
            const __m256i ones = _mm256_and_si256(_mm256_sub_epi8(x, zero_char), is_digit);
            const __m256i tens = shift_in<1>(ones, prev_value);
            const __m256i hundreds =
                _mm256_and_si256(shift_in<2>(ones, prev_value), shift_in<1>(is_digit, prev_digit));
            const __m256i pair = _mm256_add_epi8(
                ones, _mm256_add_epi8(_mm256_slli_epi16(tens, 3), _mm256_slli_epi16(tens, 1)));
            const __m256i over = _mm256_or_si256(
                _mm256_cmpgt_epi8(hundreds, high),
                _mm256_and_si256(_mm256_cmpeq_epi8(hundreds, high), _mm256_cmpgt_epi8(pair, low)));
            const __m256i h = _mm256_min_epu8(hundreds, three);
            const __m256i value = _mm256_add_epi8(
                pair,
                _mm256_add_epi8(_mm256_slli_epi16(h, 6),
                                _mm256_add_epi8(_mm256_slli_epi16(h, 5), _mm256_slli_epi16(h, 2))));
            _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + 32 * k), value);
            digit |= std::uint64_t{static_cast<std::uint32_t>(_mm256_movemask_epi8(is_digit))}
                     << (32 * k);
            space |= std::uint64_t{static_cast<std::uint32_t>(_mm256_movemask_epi8(is_space))}
                     << (32 * k);
            exceed |= std::uint64_t{static_cast<std::uint32_t>(_mm256_movemask_epi8(over))}
                      << (32 * k);
            prev_value = ones;
            prev_digit = is_digit;
        }
    }
};

template <class Value>
[[gnu::target("avx2,bmi,popcnt"), gnu::flatten]] std::size_t
decimal_list_avx2(const char** pos, const char* end, Value* out, std::size_t max_values,
                  std::uint32_t max_value) noexcept {
    return decimal_list_bitmap<classify_avx2>(pos, end, out, max_values, max_value);
}

inline bool has_avx512_vbmi2() noexcept {
    // Every CPU with AVX-512 VBMI2 (Ice Lake, Zen 4 and later) also has LZCNT, which the
    // kernel's target uses; clang's __builtin_cpu_supports does not know "lzcnt".
    static const bool has = [] {
        __builtin_cpu_init();
        return __builtin_cpu_supports("avx512vbmi") && __builtin_cpu_supports("avx512vbmi2") &&
               __builtin_cpu_supports("bmi2");
    }();
    return has;
}

// GCC 12's AVX-512 intrinsics initialise their placeholder operands from themselves, which
// -Wmaybe-uninitialized reports once they are inlined here.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
/// One 64-byte block: digit and whitespace bitmaps, and each byte minus '0'.
struct avx512_block {
    std::uint64_t digit;
    std::uint64_t space;
    __m512i d;
};

[[gnu::target("avx512f,avx512bw"), gnu::always_inline]] inline avx512_block
classify_avx512(const char* q) noexcept {
    const __m512i x = _mm512_loadu_si512(q);
    avx512_block b;
    b.d = _mm512_sub_epi8(x, _mm512_set1_epi8('0'));
    b.digit = _mm512_cmplt_epu8_mask(b.d, _mm512_set1_epi8(10));
    b.space =
        _mm512_cmpeq_epi8_mask(x, _mm512_set1_epi8(' ')) |
        _mm512_cmplt_epu8_mask(_mm512_sub_epi8(x, _mm512_set1_epi8('\t')), _mm512_set1_epi8(5));
    return b;
}

template <class Value>
[[gnu::target("avx512f,avx512bw,avx512vbmi,avx512vbmi2,bmi,bmi2,lzcnt,popcnt")]] std::size_t
decimal_list_avx512(const char** pos, const char* end, Value* out, std::size_t max_values,
                    std::uint32_t max_value) noexcept {
    constexpr int max_digits = decimal_max_digits<Value>;
    alignas(64) static constexpr unsigned char iota_bytes[64] = {
        0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21,
        22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43,
        44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63};
    const __m512i iota = _mm512_load_si512(iota_bytes);
    const __m512i pair_weights = _mm512_set1_epi16(0x010A); // low byte x10, high byte x1
    const __m512i hundred = _mm512_set1_epi16(100);
    // value = 100 * high + low with low <= 99, so value > max_value exactly when
    // high > max_value / 100, or high == max_value / 100 and low > max_value % 100.
    const __m512i high_limit = _mm512_set1_epi16(static_cast<short>(max_value / 100));
    const __m512i low_limit = _mm512_set1_epi16(static_cast<short>(max_value % 100));
    constexpr std::uint64_t even_bytes = 0x5555555555555555ull;

    // Fixed 64-byte blocks, so that no step waits for the previous one: a token belongs to
    // the block of its last digit and may start up to 4 bytes into the block before, whose
    // digit tables are kept; the block after is classified one step ahead for the separator
    // of a token ending at byte 63. Tables: the digits of a block (0 elsewhere), and the
    // digits followed by at least two (three) more digits, so that a position before a
    // token's start reads 0 and every digit lands in its place with one vpermt2b over the
    // 128 bytes of the two blocks.
    const char* q = *pos;
    const char* taken = q; // after the separator of the last token taken
    std::size_t n = 0;
    if (end - q < 128 || max_values == 0) {
        return 0;
    }
    std::uint64_t prev_digit = 0;
    __m512i prev_ones = _mm512_setzero_si512(), prev_three = prev_ones, prev_four = prev_ones;
    avx512_block cur = classify_avx512(q);
    while (end - q >= 128) {
        const avx512_block next = classify_avx512(q + 64);
        // Digit runs across the block boundary: bit i of run_k is set when bytes i..i+k are
        // digits (k = 2, 3), bytes of the next block included.
        const std::uint64_t run2 = cur.digit & ((cur.digit >> 1) | (next.digit << 63));
        const std::uint64_t run3 = run2 & ((cur.digit >> 2) | (next.digit << 62));
        const __m512i ones = _mm512_maskz_mov_epi8(cur.digit, cur.d);
        const __m512i three = _mm512_maskz_mov_epi8(run3, cur.d);
        __m512i four = _mm512_setzero_si512();
        if constexpr (max_digits > 3) {
            four = _mm512_maskz_mov_epi8(run3 & ((cur.digit >> 3) | (next.digit << 61)), cur.d);
        }

        std::uint64_t ends = cur.digit & ((cur.space >> 1) | (next.space << 63));
        bool stop = false;
        if (const std::uint64_t bad = ~(cur.digit | cur.space); bad != 0) {
            ends &= (bad & (0 - bad)) - 1;
            stop = true;
        }
        std::uint64_t run = ends; // bit e: bytes e-k..e are all digits, k up to max_digits
        for (int k = 1; k <= max_digits; ++k) {
            run &= (cur.digit << k) | (prev_digit >> (64 - k));
        }
        if (run != 0) {
            ends &= (run & (0 - run)) - 1; // the tokens before the first long one
            stop = true;
        }
        const std::size_t room = max_values - n;
        unsigned count = static_cast<unsigned>(std::popcount(ends)); // <= 32
        if (count > room) {
            count = static_cast<unsigned>(room);
            ends = lowest_bits(ends, count);
            stop = true;
        }
        if (count != 0) {
            // Lane i (16 bits) belongs to token i, ending at byte e of this block, i.e. at
            // index 64 + e of the two blocks' 128 bytes; its digit k sits at 64 + e - k.
            const __m512i e8 = _mm512_maskz_compress_epi8(ends, iota);
            const __m512i e16 = _mm512_cvtepu8_epi16(_mm512_castsi512_si256(e8));
            const __m512i e_pair = _mm512_mullo_epi16(e16, _mm512_set1_epi16(257)); // e, e
            // Tens (index 63 + e) in the low byte, ones (64 + e) in the high byte.
            const __m512i to = _mm512_permutex2var_epi8(
                prev_ones, _mm512_add_epi16(e_pair, _mm512_set1_epi16(0x403F)), ones);
            const __m512i low = _mm512_maddubs_epi16(to, pair_weights); // 10 * tens + ones
            __m512i high;
            if constexpr (max_digits == 3) {
                high = _mm512_maskz_permutex2var_epi8(
                    even_bytes, prev_three, _mm512_add_epi16(e16, _mm512_set1_epi16(62)), three);
            } else {
                // Thousands (61 + e) and hundreds (62 + e); ten thousands (60 + e).
                const __m512i th = _mm512_permutex2var_epi8(
                    prev_three, _mm512_add_epi16(e_pair, _mm512_set1_epi16(0x3E3D)), three);
                const __m512i tt = _mm512_maskz_permutex2var_epi8(
                    even_bytes, prev_four, _mm512_add_epi16(e16, _mm512_set1_epi16(60)), four);
                high = _mm512_add_epi16(_mm512_maddubs_epi16(th, pair_weights),
                                        _mm512_mullo_epi16(tt, hundred));
            }
            std::uint32_t lanes = static_cast<std::uint32_t>(_bzhi_u64(~0ull, count));
            const std::uint32_t over = (_mm512_cmpgt_epu16_mask(high, high_limit) |
                                        (_mm512_cmpeq_epu16_mask(high, high_limit) &
                                         _mm512_cmpgt_epu16_mask(low, low_limit))) &
                                       lanes;
            if (over != 0) {
                count = static_cast<unsigned>(std::countr_zero(over));
                lanes = static_cast<std::uint32_t>(_bzhi_u64(~0ull, count));
                ends = lowest_bits(ends, count);
                stop = true;
            }
            const __m512i value = _mm512_add_epi16(_mm512_mullo_epi16(high, hundred), low);
            if constexpr (sizeof(Value) == 1) {
                const __m256i bytes = _mm512_cvtepi16_epi8(value);
                if (room >= 32) {
                    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + n), bytes);
                } else {
                    _mm512_mask_storeu_epi8(out + n, lanes, _mm512_castsi256_si512(bytes));
                }
            } else {
                if (room >= 32) {
                    _mm512_storeu_si512(out + n, value);
                } else {
                    _mm512_mask_storeu_epi16(out + n, lanes, value);
                }
            }
            n += count;
        }
        if (ends != 0) {
            taken = q + (65 - std::countl_zero(ends)); // last end + 2
        }
        if (stop) {
            break;
        }
        prev_digit = cur.digit;
        prev_ones = ones;
        prev_three = three;
        prev_four = four;
        cur = next;
        q += 64;
    }
    *pos = taken;
    return n;
}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
#endif

} // namespace fastread::detail

#endif // FASTREAD_SCAN_DETAIL_DECIMAL_LIST_X86_HPP
