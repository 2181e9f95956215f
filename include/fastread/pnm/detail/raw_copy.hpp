#ifndef FASTREAD_PNM_DETAIL_RAW_COPY_HPP
#define FASTREAD_PNM_DETAIL_RAW_COPY_HPP

// Copies a raw (P6) raster from memory into samples in one pass: widen 1-byte samples or
// swap 2-byte big-endian ones, and find the first sample above maxval. On x86-64 the loop
// uses SSE2 (part of the x86-64 baseline: no run-time dispatch needed) and, for rasters
// bigger than the caches, non-temporal stores, which skip reading the destination's lines
// before overwriting them. Elsewhere a scalar loop does the same.

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "../../detail/policy.hpp"

#if defined(__x86_64__) || defined(_M_X64)
#include <emmintrin.h>
#define FASTREAD_DETAIL_RAW_COPY_SSE2 1
#else
#define FASTREAD_DETAIL_RAW_COPY_SSE2 0
#endif

namespace fastread::detail {

/// Decodes `count` samples of `bytes_per_sample` (1, or 2 big-endian) bytes each from `src`
/// into `dst`. Returns the index of the first sample above `maxval`, or `count` if none;
/// that sample is decoded into `dst` too (its value is for the error message), what comes
/// after it may not be. `src` holds count * bytes_per_sample bytes. `dst` and `src` may
/// overlap only as decode_raw_in_place uses them: `src` at `dst`'s first byte when samples
/// keep their width, or at its byte `count` when 1-byte samples widen to 2 (each step loads
/// before it stores, and the stores never reach bytes not yet loaded).
/// `stream`: use streaming stores whatever `count` (a caller decoding a big raster in
/// blocks); they are used anyway from stream_store_threshold bytes.
template <class Sample>
std::size_t copy_raw_samples(Sample* dst, const unsigned char* src, std::size_t count,
                             unsigned bytes_per_sample, unsigned maxval, bool stream = false);

/// Decodes in place `count` samples whose raw bytes (1, or 2 big-endian, per sample) were
/// read into the start of `samples`' storage: 2-byte samples are swapped to native order,
/// 1-byte samples are widened when Sample is 2 bytes wide, and every sample is checked
/// against `maxval`. Returns the index of the first sample above `maxval` (decoded, so
/// samples[index] is its value), or `count` if none. One pass; none when 1-byte samples
/// stay 1 byte wide and maxval is 255 (nothing to check).
template <class Sample>
std::size_t decode_raw_in_place(Sample* samples, std::size_t count, unsigned bytes_per_sample,
                                unsigned maxval) {
    unsigned char* bytes = reinterpret_cast<unsigned char*>(samples);
    if constexpr (sizeof(Sample) == 1) {
        if (maxval == 255) {
            return count;
        }
        for (std::size_t i = 0; i < count; ++i) {
            if (samples[i] > maxval) {
                return i;
            }
        }
        return count;
    } else {
        if (bytes_per_sample == 2) {
            return copy_raw_samples(samples, bytes, count, 2, maxval);
        }
        // Widening: move the bytes to the upper half of the storage, then decode forward;
        // sample i's two bytes never reach byte count + i before it has been loaded.
        std::memmove(bytes + count, bytes, count);
        return copy_raw_samples(samples, bytes + count, count, 1, maxval);
    }
}

template <class Sample>
std::size_t copy_raw_samples(Sample* dst, const unsigned char* src, std::size_t count,
                             unsigned bytes_per_sample, unsigned maxval, bool stream) {
    std::size_t i = 0;
#if FASTREAD_DETAIL_RAW_COPY_SSE2
    stream = stream || count * sizeof(Sample) >= stream_store_threshold;
    auto store = [stream](void* p, __m128i v) {
        if (stream) {
            _mm_stream_si128(static_cast<__m128i*>(p), v);
        } else {
            _mm_store_si128(static_cast<__m128i*>(p), v);
        }
    };
    // Scalar head until dst is 16-byte aligned (stores need it; loads are unaligned).
    auto scalar = [&](std::size_t k) -> unsigned {
        return bytes_per_sample == 1 ? src[k]
                                     : static_cast<unsigned>(src[2 * k] << 8 | src[2 * k + 1]);
    };
    for (; i < count && (reinterpret_cast<std::uintptr_t>(dst + i) & 15) != 0; ++i) {
        unsigned v = scalar(i);
        dst[i] = static_cast<Sample>(v);
        if (v > maxval) {
            return i;
        }
    }
    constexpr std::size_t per_vector = 16 / sizeof(Sample); // samples per 16-byte store
    const std::size_t body_start = i;
    const __m128i zero = _mm_setzero_si128();
    __m128i excess = zero; // OR of (sample - maxval, saturated at 0) over every lane
    if constexpr (sizeof(Sample) == 1) {
        const __m128i limit = _mm_set1_epi8(static_cast<char>(maxval));
        for (; i + per_vector <= count; i += per_vector) {
            __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i));
            excess = _mm_or_si128(excess, _mm_subs_epu8(v, limit));
            store(dst + i, v);
        }
        excess = _mm_cmpeq_epi8(excess, zero); // 0xFF where no lane ever exceeded
    } else {
        const __m128i limit = _mm_set1_epi16(static_cast<short>(maxval));
        if (bytes_per_sample == 2 && maxval == 65535) {
            // Every 16-bit value is valid (the usual 16-bit maxval): swap only.
            for (; i + per_vector <= count; i += per_vector) {
                __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + 2 * i));
                store(dst + i, _mm_or_si128(_mm_slli_epi16(b, 8), _mm_srli_epi16(b, 8)));
            }
        }
        for (; i + per_vector <= count; i += per_vector) {
            __m128i v;
            if (bytes_per_sample == 1) {
                v = _mm_unpacklo_epi8(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(src + i)),
                                      zero);
            } else {
                __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + 2 * i));
                v = _mm_or_si128(_mm_slli_epi16(b, 8), _mm_srli_epi16(b, 8)); // big-endian
            }
            excess = _mm_or_si128(excess, _mm_subs_epu16(v, limit));
            store(dst + i, v);
        }
        excess = _mm_cmpeq_epi16(excess, zero);
    }
    if (stream) {
        _mm_sfence(); // order the streaming stores before anything that reads dst
    }
    if (_mm_movemask_epi8(excess) != 0xFFFF) {
        // A sample above maxval is somewhere in the vector part: find the first exactly.
        for (std::size_t k = body_start; k < i; ++k) {
            if (static_cast<unsigned>(dst[k]) > maxval) {
                return k;
            }
        }
    }
#else
    (void)stream;
#endif
    for (; i < count; ++i) {
        unsigned v = bytes_per_sample == 1
                         ? src[i]
                         : static_cast<unsigned>(src[2 * i] << 8 | src[2 * i + 1]);
        dst[i] = static_cast<Sample>(v);
        if (v > maxval) {
            return i;
        }
    }
    return count;
}

} // namespace fastread::detail

#endif // FASTREAD_PNM_DETAIL_RAW_COPY_HPP
