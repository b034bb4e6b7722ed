// The seeded generator and shuffle, exactly as docs/rng.md specifies ("Seeded randomness" in
// RULES.md): the pure-Python reference implements the same algorithm, bit for bit.
#pragma once

#include <cstdint>
#include <utility>

namespace sequence {

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
        using u128 = unsigned __int128;
        u128 m = static_cast<u128>(next()) * n;
        std::uint64_t low = static_cast<std::uint64_t>(m);
        if (low < n) {
            const std::uint64_t threshold = (0 - static_cast<std::uint64_t>(n)) % n;  // (2^64 - n) mod n
            while (low < threshold) {
                m = static_cast<u128>(next()) * n;
                low = static_cast<std::uint64_t>(m);
            }
        }
        return static_cast<std::uint32_t>(m >> 64);
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

}  // namespace sequence
