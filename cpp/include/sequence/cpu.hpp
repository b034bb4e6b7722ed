// The one home of compiler- and processor-specific code: the wrappers of builtins and
// instructions the core uses (GCC/Clang, MSVC; x86-64, ARM and any other target through portable
// fallbacks), and the instruction-set paths a build can hold, with the CPUID test that picks one.
//
// Paths. A portable x86-64 build (CMake SEQUENCE_DISPATCH, the default for wheels) compiles the
// whole core and its bindings once per path, each copy in its own namespace (the build renames
// `sequence`), and the module runs the best copy the processor supports, chosen once at import;
// the environment variable SEQUENCE_CPU names a lower one (docs/api.md, build_info()). A copy's
// code is exactly the same source: only the instructions below differ, so every path plays the
// same games. Which features a translation unit may use comes from the compiler's flags
// (-march=..., /arch:...), read here into SEQUENCE_HAS_*; nothing else tests compiler macros.
#pragma once

#include <cstdint>
#include <cstring>
#if __has_include(<bit>)
#include <bit>  // C++20: std::countr_zero, std::popcount (__cpp_lib_bitops)
#endif

#include "sequence/isa.hpp"

#if defined(_MSC_VER) && !defined(__clang__)
#define SEQUENCE_MSVC 1
#include <intrin.h>
#else
#define SEQUENCE_MSVC 0
#endif

#if defined(__x86_64__) || defined(_M_X64) || defined(_M_AMD64)
#define SEQUENCE_X86_64 1
#include <immintrin.h>
#if !SEQUENCE_MSVC
#include <cpuid.h>
#endif
#else
#define SEQUENCE_X86_64 0
#endif

// ---- What this translation unit may use --------------------------------------------------------
// SEQUENCE_ISA_LEVEL (set by CMake for each copy of a dispatching build): 0 baseline,
// 1 x86-64-v3, 2 AVX-512. MSVC defines no macro for BMI2, VBMI or BITALG: its /arch:AVX2 implies
// BMI2, and the AVX-512 copy states its level.
#if SEQUENCE_X86_64 && (defined(__POPCNT__) || (SEQUENCE_MSVC && defined(__AVX__)))
#define SEQUENCE_HAS_POPCNT 1
#else
#define SEQUENCE_HAS_POPCNT 0
#endif
#if SEQUENCE_X86_64 && (defined(__BMI2__) || (SEQUENCE_MSVC && defined(__AVX2__)))
#define SEQUENCE_HAS_BMI2 1
#else
#define SEQUENCE_HAS_BMI2 0
#endif
#if SEQUENCE_X86_64 && defined(__AVX2__)
#define SEQUENCE_HAS_AVX2 1
#else
#define SEQUENCE_HAS_AVX2 0
#endif
#if SEQUENCE_X86_64 && ((defined(__AVX512VBMI__) && defined(__AVX512BITALG__)) || \
                        (SEQUENCE_MSVC && defined(__AVX512BW__) && defined(SEQUENCE_ISA_LEVEL) && SEQUENCE_ISA_LEVEL >= 2))
#define SEQUENCE_HAS_AVX512_VBMI 1  // AVX-512 F, BW, VBMI and BITALG
#else
#define SEQUENCE_HAS_AVX512_VBMI 0
#endif
// A hardware population count: x86 with POPCNT, and the other 64-bit targets (ARMv8 cnt).
#if SEQUENCE_HAS_POPCNT || !SEQUENCE_X86_64
#define SEQUENCE_FAST_POPCOUNT 1
#else
#define SEQUENCE_FAST_POPCOUNT 0
#endif

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define SEQUENCE_LITTLE_ENDIAN 1
#elif SEQUENCE_MSVC  // every Windows target is little-endian
#define SEQUENCE_LITTLE_ENDIAN 1
#else
#define SEQUENCE_LITTLE_ENDIAN 0
#endif

// ---- Attributes --------------------------------------------------------------------------------
#if SEQUENCE_MSVC
#define SEQUENCE_ALWAYS_INLINE __forceinline
#define SEQUENCE_NOINLINE __declspec(noinline)
#define SEQUENCE_COLD
#define SEQUENCE_LIKELY(x) (x)
#define SEQUENCE_UNLIKELY(x) (x)
#else
#define SEQUENCE_ALWAYS_INLINE inline __attribute__((always_inline))
#define SEQUENCE_NOINLINE __attribute__((noinline))
#define SEQUENCE_COLD __attribute__((cold))
#define SEQUENCE_LIKELY(x) __builtin_expect(!!(x), 1)
#define SEQUENCE_UNLIKELY(x) __builtin_expect(!!(x), 0)
#endif

namespace sequence {
inline namespace SEQUENCE_ISA {
namespace bits {

// Index of the lowest set bit. Requires x != 0.
inline int ctz64(std::uint64_t x) {
#if defined(__cpp_lib_bitops)
    return std::countr_zero(x);
#elif SEQUENCE_MSVC
    unsigned long i;
    _BitScanForward64(&i, x);
    return static_cast<int>(i);
#else
    return __builtin_ctzll(x);
#endif
}
inline int ctz32(std::uint32_t x) {
#if defined(__cpp_lib_bitops)
    return std::countr_zero(x);
#elif SEQUENCE_MSVC
    unsigned long i;
    _BitScanForward(&i, x);
    return static_cast<int>(i);
#else
    return __builtin_ctz(x);
#endif
}
// Number of zero bits above the highest set bit. Requires x != 0.
inline int clz64(std::uint64_t x) {
#if defined(__cpp_lib_bitops)
    return std::countl_zero(x);
#elif SEQUENCE_MSVC
    unsigned long i;
    _BitScanReverse64(&i, x);
    return 63 - static_cast<int>(i);
#else
    return __builtin_clzll(x);
#endif
}

// Without a hardware count (baseline x86-64) the builtin is a library call; the SWAR count is a
// dozen inline instructions.
inline std::uint64_t popcount_bytes(std::uint64_t x) {  // byte i: the set bits of byte i
    x = x - ((x >> 1) & 0x5555555555555555ull);
    x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
    return (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0Full;
}
inline int popcount64(std::uint64_t x) {
#if SEQUENCE_FAST_POPCOUNT && defined(__cpp_lib_bitops)
    return std::popcount(x);
#elif SEQUENCE_FAST_POPCOUNT && SEQUENCE_MSVC && SEQUENCE_X86_64
    return static_cast<int>(__popcnt64(x));
#elif SEQUENCE_FAST_POPCOUNT && SEQUENCE_MSVC
    return static_cast<int>(_CountOneBits64(x));
#elif SEQUENCE_FAST_POPCOUNT
    return __builtin_popcountll(x);
#else
    return static_cast<int>((popcount_bytes(x) * 0x0101010101010101ull) >> 56);
#endif
}

inline std::uint64_t bswap64(std::uint64_t x) {
#if SEQUENCE_MSVC
    return _byteswap_uint64(x);
#else
    return __builtin_bswap64(x);
#endif
}

// The high 64 bits of the 128-bit product a * b.
inline std::uint64_t mulhi64(std::uint64_t a, std::uint64_t b) {
#if defined(__SIZEOF_INT128__)
    return static_cast<std::uint64_t>((static_cast<unsigned __int128>(a) * b) >> 64);
#elif SEQUENCE_MSVC && (defined(_M_X64) || defined(_M_ARM64))
    return __umulh(a, b);
#else
    const std::uint64_t a_lo = a & 0xFFFFFFFFu, a_hi = a >> 32, b_lo = b & 0xFFFFFFFFu, b_hi = b >> 32;
    const std::uint64_t lo_lo = a_lo * b_lo, hi_lo = a_hi * b_lo, lo_hi = a_lo * b_hi, hi_hi = a_hi * b_hi;
    const std::uint64_t mid = (lo_lo >> 32) + (hi_lo & 0xFFFFFFFFu) + lo_hi;
    return hi_hi + (hi_lo >> 32) + (mid >> 32);
#endif
}

#if SEQUENCE_HAS_BMI2
inline std::uint64_t pdep64(std::uint64_t x, std::uint64_t mask) { return _pdep_u64(x, mask); }
inline std::uint64_t pext64(std::uint64_t x, std::uint64_t mask) { return _pext_u64(x, mask); }
// x with the bits from index n up cleared (all of x for n >= 64).
inline std::uint64_t bzhi64(std::uint64_t x, unsigned n) { return _bzhi_u64(x, n); }
#endif

// Four 64-bit lanes operated on together (window_lanes.hpp): GCC/Clang's vector extension (one
// AVX2 register, or scalar code without AVX2), else (MSVC) a plain array with the same operators.
#if !SEQUENCE_MSVC && !defined(SEQUENCE_NO_VECTOR_EXTENSION)
typedef std::uint64_t U64x4 __attribute__((vector_size(32)));
#else
struct U64x4 {
    std::uint64_t v[4];
    constexpr std::uint64_t operator[](int i) const { return v[i]; }
    template <class F>
    static constexpr U64x4 map(F f) { return {f(0), f(1), f(2), f(3)}; }
    friend constexpr U64x4 operator&(const U64x4& a, const U64x4& b) { return map([&](int i) { return a.v[i] & b.v[i]; }); }
    friend constexpr U64x4 operator|(const U64x4& a, const U64x4& b) { return map([&](int i) { return a.v[i] | b.v[i]; }); }
    friend constexpr U64x4 operator^(const U64x4& a, const U64x4& b) { return map([&](int i) { return a.v[i] ^ b.v[i]; }); }
    friend constexpr U64x4 operator~(const U64x4& a) { return map([&](int i) { return ~a.v[i]; }); }
    friend constexpr U64x4 operator<<(const U64x4& a, const U64x4& s) { return map([&](int i) { return a.v[i] << s.v[i]; }); }
    friend constexpr U64x4 operator>>(const U64x4& a, const U64x4& s) { return map([&](int i) { return a.v[i] >> s.v[i]; }); }
    friend constexpr U64x4 operator*(const U64x4& a, int k) { return map([&](int i) { return a.v[i] * static_cast<std::uint64_t>(k); }); }
    friend constexpr U64x4 operator-(int k, const U64x4& a) { return map([&](int i) { return static_cast<std::uint64_t>(k) - a.v[i]; }); }
};
#endif

}  // namespace bits

// ---- Instruction-set paths ---------------------------------------------------------------------
namespace cpu {

enum class Path : int { Baseline = 0, X86_64_V3 = 1, Avx512 = 2 };
constexpr int kPaths = 3;

// The names SEQUENCE_CPU and build_info() use.
constexpr const char* path_name(Path p) {
    return p == Path::Avx512 ? "avx512" : p == Path::X86_64_V3 ? "x86-64-v3" : "baseline";
}
inline bool parse_path(const char* name, Path& out) {
    for (int i = 0; i < kPaths; ++i)
        if (std::strcmp(name, path_name(static_cast<Path>(i))) == 0) {
            out = static_cast<Path>(i);
            return true;
        }
    return false;
}

// The path this translation unit is compiled for.
#if SEQUENCE_HAS_AVX512_VBMI && SEQUENCE_HAS_BMI2 && SEQUENCE_HAS_AVX2
constexpr Path kCompiledPath = Path::Avx512;
#elif SEQUENCE_HAS_BMI2 && SEQUENCE_HAS_AVX2 && SEQUENCE_HAS_POPCNT
constexpr Path kCompiledPath = Path::X86_64_V3;
#else
constexpr Path kCompiledPath = Path::Baseline;
#endif

#if SEQUENCE_X86_64
namespace detail {
struct CpuidRegs {
    std::uint32_t a = 0, b = 0, c = 0, d = 0;
};
inline CpuidRegs cpuid(std::uint32_t leaf, std::uint32_t sub) {
    CpuidRegs r;
#if SEQUENCE_MSVC
    int x[4];
    __cpuidex(x, static_cast<int>(leaf), static_cast<int>(sub));
    r = {static_cast<std::uint32_t>(x[0]), static_cast<std::uint32_t>(x[1]), static_cast<std::uint32_t>(x[2]),
         static_cast<std::uint32_t>(x[3])};
#else
    __cpuid_count(leaf, sub, r.a, r.b, r.c, r.d);
#endif
    return r;
}
// The register states the OS saves (XCR0); requires OSXSAVE.
inline std::uint64_t xcr0() {
#if SEQUENCE_MSVC
    return _xgetbv(0);
#else
    std::uint32_t lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return static_cast<std::uint64_t>(hi) << 32 | lo;
#endif
}
constexpr bool all(std::uint32_t reg, std::uint32_t bits) { return (reg & bits) == bits; }
}  // namespace detail
#endif

// Whether this processor (and OS) can run the path: x86-64-v3 as the psABI level defines it
// (AVX2, BMI1/2, FMA, F16C, LZCNT, MOVBE over v2), AVX-512 as x86-64-v4 (F, BW, CD, DQ, VL) plus
// VBMI and BITALG. The baseline runs everywhere.
inline bool supports(Path p) {
    if (p == Path::Baseline) return true;
#if SEQUENCE_X86_64
    using detail::all;
    const detail::CpuidRegs l0 = detail::cpuid(0, 0), e0 = detail::cpuid(0x80000000u, 0);
    if (l0.a < 7 || e0.a < 0x80000001u) return false;
    const detail::CpuidRegs l1 = detail::cpuid(1, 0), l7 = detail::cpuid(7, 0), e1 = detail::cpuid(0x80000001u, 0);
    // leaf 1 ecx: SSE3 0, SSSE3 9, FMA 12, CX16 13, SSE4.1 19, SSE4.2 20, MOVBE 22, POPCNT 23,
    // OSXSAVE 27, AVX 28, F16C 29; leaf 7 ebx: BMI1 3, AVX2 5, BMI2 8; 0x80000001 ecx: LAHF 0, LZCNT 5.
    const bool v3 = all(l1.c, 1u << 0 | 1u << 9 | 1u << 12 | 1u << 13 | 1u << 19 | 1u << 20 | 1u << 22 | 1u << 23 |
                                  1u << 27 | 1u << 28 | 1u << 29) &&
                    all(l7.b, 1u << 3 | 1u << 5 | 1u << 8) && all(e1.c, 1u << 0 | 1u << 5) &&
                    (detail::xcr0() & 0x6) == 0x6;  // the OS saves the SSE and AVX registers
    if (p == Path::X86_64_V3 || !v3) return v3;
    // leaf 7 ebx: AVX512F 16, DQ 17, CD 28, BW 30, VL 31; ecx: VBMI 1, BITALG 12.
    const bool avx512 = all(l7.b, 1u << 16 | 1u << 17 | 1u << 28 | 1u << 30 | 1u << 31) && all(l7.c, 1u << 1 | 1u << 12);
#if defined(__APPLE__)
    // macOS enables the AVX-512 register state on first use, so XCR0 does not show it beforehand.
    return avx512;
#else
    return avx512 && (detail::xcr0() & 0xE6) == 0xE6;  // and the opmask and upper ZMM states
#endif
#else
    return false;
#endif
}

}  // namespace cpu
}  // namespace SEQUENCE_ISA
}  // namespace sequence
