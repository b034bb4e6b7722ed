// The instruction-set wrappers (cpu.hpp) against plain loops, and simulate()'s game totals, on
// whichever path and target this binary was built for: every path (baseline, x86-64-v3, AVX-512)
// and every target (x86-64, aarch64) must play exactly the same games.
#include <cstdio>

#include "sequence/bitboard.hpp"
#include "sequence/cpu.hpp"
#include "sequence/rng.hpp"
#include "sequence/simulate.hpp"
#include "sequence/state.hpp"
#include "test.hpp"

using namespace sequence;

namespace {

int slow_popcount(std::uint64_t x) {
    int n = 0;
    for (int i = 0; i < 64; ++i) n += static_cast<int>(x >> i & 1);
    return n;
}
int slow_ctz(std::uint64_t x) {
    int i = 0;
    while (!(x >> i & 1)) ++i;
    return i;
}
int slow_clz(std::uint64_t x) {
    int i = 63;
    while (!(x >> i & 1)) --i;
    return 63 - i;
}
// The high half of a * b by 32-bit schoolbook multiplication.
std::uint64_t slow_mulhi(std::uint64_t a, std::uint64_t b) {
    const std::uint64_t al = a & 0xFFFFFFFFu, ah = a >> 32, bl = b & 0xFFFFFFFFu, bh = b >> 32;
    const std::uint64_t ll = al * bl, hl = ah * bl, lh = al * bh, hh = ah * bh;
    const std::uint64_t carry = ((ll >> 32) + (hl & 0xFFFFFFFFu) + (lh & 0xFFFFFFFFu)) >> 32;
    return hh + (hl >> 32) + (lh >> 32) + carry;
}
int slow_select(std::uint64_t x, int n) {
    for (int i = 0; i < 64; ++i)
        if ((x >> i & 1) && n-- == 0) return i;
    return -1;
}

}  // namespace

TEST(cpu_wrappers_match_plain_loops) {
    std::printf("     path: %s\n", cpu::path_name(cpu::kCompiledPath));
    SplitMix64 rng(12345);
    for (int k = 0; k < 20000; ++k) {
        // Sparse, dense and random words.
        std::uint64_t x = rng.next();
        if (k % 3 == 1) x &= rng.next() & rng.next();
        if (k % 3 == 2) x |= rng.next() | rng.next();
        const std::uint64_t y = rng.next() >> (k % 64);
        CHECK_EQ(bits::popcount64(x), slow_popcount(x));
        CHECK_EQ(bits::mulhi64(x, y), slow_mulhi(x, y));
        CHECK_EQ(bits::bswap64(bits::bswap64(x)), x);
        CHECK_EQ(bits::bswap64(x) >> 56, x & 0xFF);
        if (x == 0) continue;
        CHECK_EQ(bits::ctz64(x), slow_ctz(x));
        CHECK_EQ(bits::clz64(x), slow_clz(x));
        if (static_cast<std::uint32_t>(x) != 0) CHECK_EQ(bits::ctz32(static_cast<std::uint32_t>(x)), slow_ctz(x));
        const int n = static_cast<int>(y % static_cast<std::uint64_t>(slow_popcount(x)));
        CHECK_EQ(detail::select64(x, n), slow_select(x, n));
        const Bitboard b(x, y & ((std::uint64_t{1} << 36) - 1));
        CHECK_EQ(b.count(), slow_popcount(b.lo()) + slow_popcount(b.hi()));
    }
    CHECK_EQ(bits::mulhi64(~std::uint64_t{0}, ~std::uint64_t{0}), ~std::uint64_t{0} - 1);
}

TEST(simulate_totals_are_those_of_every_path_and_target) {
    // The fingerprint of simulate()'s games (deals per docs/rng.md, moves per playout.hpp), the
    // totals `sequence_bench 30000 sim` prints: any difference is a change of play.
    Config cfg;
    CHECK(make_config(2, 2, cfg));
    const SimulateResult r = simulate(30000, cfg, 1, 1, 1000, nullptr);
    CHECK_EQ(r.games, std::int64_t{30000});
    CHECK_EQ(r.wins[0], std::int64_t{14983});
    CHECK_EQ(r.wins[1], std::int64_t{15014});
    CHECK_EQ(r.draws, std::int64_t{3});
    CHECK_EQ(r.total_turns, std::int64_t{2448866});
}
