// The seeded generator and shuffle, exactly as docs/rng.md specifies ("Digital conventions" in
// docs/rules.md): the pure-Python reference implements the same algorithm, bit for bit.
#pragma once

#include <cassert>
#include <cstdint>
#include <utility>

#include "sequence/cpu.hpp"
#include "sequence/isa.hpp"

namespace sequence {
inline namespace SEQUENCE_ISA {

class SplitMix64 {
public:
    explicit constexpr SplitMix64(std::uint64_t state) : s_(state) {}

    // The next 64-bit output; advances the state (docs/rng.md "Generator").
    constexpr std::uint64_t next() {
        s_ += 0x9E3779B97F4A7C15ull;
        std::uint64_t z = s_;
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }

    // A uniform integer in [0, n) by Lemire's multiply-and-reject (docs/rng.md "below").
    // Requires 1 <= n < 2^32.
    std::uint32_t below(std::uint32_t n) {
        assert(n >= 1);
        // The 128-bit product x * n: low and high 64 bits.
        std::uint64_t x = next();
        std::uint64_t low = x * n;
        if (low < n) {
            const std::uint64_t threshold = (0 - static_cast<std::uint64_t>(n)) % n;  // (2^64 - n) mod n
            while (low < threshold) {
                x = next();
                low = x * n;
            }
        }
        return static_cast<std::uint32_t>(bits::mulhi64(x, n));
    }

    constexpr std::uint64_t state() const { return s_; }

private:
    std::uint64_t s_;
};

// Fisher-Yates from the back (docs/rng.md "Shuffle"): for i = n-1 .. 1 swap a[i], a[below(i+1)].
template <class T>
void shuffle(T* a, int n, SplitMix64& rng) {
    for (int i = n - 1; i >= 1; --i) std::swap(a[i], a[rng.below(static_cast<std::uint32_t>(i + 1))]);
}

// A uniform integer in [0, n) from a 32-bit random x: Lemire's multiply-and-reject on 32 bits,
// exact; more() supplies further 32-bit randoms in the rare rejection case. Requires 1 <= n < 2^32.
template <class More>
inline std::uint32_t below32(std::uint32_t x, std::uint32_t n, More&& more) {
    assert(n >= 1);
    std::uint64_t m = std::uint64_t{x} * n;
    if (SEQUENCE_UNLIKELY(static_cast<std::uint32_t>(m) < n)) {
        const std::uint32_t threshold = (0u - n) % n;  // (2^32 - n) mod n
        while (static_cast<std::uint32_t>(m) < threshold) m = std::uint64_t{more()} * n;
    }
    return static_cast<std::uint32_t>(m >> 32);
}

// Fisher-Yates from the back, with both 32-bit halves of each SplitMix64 output used (two swaps per
// next() call): uniform like shuffle() at half the generator calls. For sampling that no document
// fixes (simulate()'s deal, the search's determinizations); Game shuffles as docs/rng.md specifies.
template <class T>
inline void shuffle_halves(T* a, int n, SplitMix64& rng) {
    auto more = [&rng]() { return static_cast<std::uint32_t>(rng.next() >> 32); };
    int i = n - 1;
    for (; i >= 2; i -= 2) {
        const std::uint64_t x = rng.next();
        std::swap(a[i], a[below32(static_cast<std::uint32_t>(x), static_cast<std::uint32_t>(i + 1), more)]);
        std::swap(a[i - 1], a[below32(static_cast<std::uint32_t>(x >> 32), static_cast<std::uint32_t>(i), more)]);
    }
    if (i == 1) std::swap(a[1], a[below32(static_cast<std::uint32_t>(rng.next()), 2, more)]);
}

}  // namespace SEQUENCE_ISA
}  // namespace sequence
