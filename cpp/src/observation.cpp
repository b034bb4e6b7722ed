#include "sequence/observation.hpp"

#include <cassert>
#include <cstring>

#include "sequence/cpu.hpp"
#include "sequence/rules.hpp"

namespace sequence {
inline namespace SEQUENCE_ISA {

namespace {

// Every value of the row is written exactly once, front to back, with no zero fill first: a
// batched game writes kObservationSize floats per game and step, so the writer is bound by its
// stores. Planes are expanded from the bitboards 8 (AVX2) or 4 (SSE2) cells per store.

#if SEQUENCE_HAS_AVX2
// Eight floats: 1.0f in lane l if bit (31 - shift[l]) of every lane of w is set, else 0.0f (a
// variable shift moves that bit to the sign bit, and a blend picks 1.0f by the sign).
inline __m256 expand8(__m256i w, __m256i shift) {
    return _mm256_blendv_ps(_mm256_setzero_ps(), _mm256_set1_ps(1.0f), _mm256_castsi256_ps(_mm256_sllv_epi32(w, shift)));
}

// 32 floats from the 32 bits of word, bit i -> float i.
inline void write_word(float* out, std::uint32_t word) {
    const __m256i w = _mm256_set1_epi32(static_cast<int>(word));
    _mm256_storeu_ps(out, expand8(w, _mm256_setr_epi32(31, 30, 29, 28, 27, 26, 25, 24)));
    _mm256_storeu_ps(out + 8, expand8(w, _mm256_setr_epi32(23, 22, 21, 20, 19, 18, 17, 16)));
    _mm256_storeu_ps(out + 16, expand8(w, _mm256_setr_epi32(15, 14, 13, 12, 11, 10, 9, 8)));
    _mm256_storeu_ps(out + 24, expand8(w, _mm256_setr_epi32(7, 6, 5, 4, 3, 2, 1, 0)));
}

// 100 floats: 1.0f on the cells of b, 0.0f elsewhere. An empty plane (the third team's with two
// teams, the pending planes on most steps) is plain zero stores.
void write_plane(float* out, Bitboard b) {
    if (b.none()) {
        const __m256 zero = _mm256_setzero_ps();
#pragma GCC unroll 12
        for (int i = 0; i < 96; i += 8) _mm256_storeu_ps(out + i, zero);
        _mm_storeu_ps(out + 96, _mm_setzero_ps());
        return;
    }
    write_word(out, static_cast<std::uint32_t>(b.lo()));
    write_word(out + 32, static_cast<std::uint32_t>(b.lo() >> 32));
    write_word(out + 64, static_cast<std::uint32_t>(b.hi()));
    const __m128i tail = _mm_set1_epi32(static_cast<int>(b.hi() >> 32));  // cells 96..99
    _mm_storeu_ps(out + 96, _mm_blendv_ps(_mm_setzero_ps(), _mm_set1_ps(1.0f),
                                          _mm_castsi128_ps(_mm_sllv_epi32(tail, _mm_setr_epi32(31, 30, 29, 28)))));
}

// out[c] = count[c] for c < 56: the kCardKinds counts and 4 zeros past them (count[52..55] are 0,
// the first 4 values of the next field, which the caller writes afterwards).
void write_counts(float* out, const std::uint8_t (&count)[64]) {
    for (int c = 0; c < 56; c += 8) {
        const __m128i bytes = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(count + c));
        _mm256_storeu_ps(out + c, _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(bytes)));
    }
}
#else
// The four floats of each nibble value (bit i -> float i), for the portable expansion.
struct NibbleFloats {
    float v[16][4];
    constexpr NibbleFloats() : v() {
        for (int n = 0; n < 16; ++n)
            for (int i = 0; i < 4; ++i) v[n][i] = static_cast<float>((n >> i) & 1);
    }
};
alignas(16) constexpr NibbleFloats kNibbleFloats{};

void write_plane(float* out, Bitboard b) {
    std::uint64_t lo = b.lo(), hi = b.hi();
    for (int i = 0; i < 64; i += 4, lo >>= 4) std::memcpy(out + i, kNibbleFloats.v[lo & 15], 16);
    for (int i = 64; i < kCells; i += 4, hi >>= 4) std::memcpy(out + i, kNibbleFloats.v[hi & 15], 16);
}

// out[c] = count[c] for the kCardKinds cards.
void write_counts(float* out, const std::uint8_t (&count)[64]) {
    for (int c = 0; c < kCardKinds; ++c) out[c] = count[c];
}
#endif

}  // namespace

void write_observation(const GameState& s, const PendingPlacement& pending, int observer, float* out) {
    const int players = s.config.players, teams = s.config.teams;
    assert(observer >= 0 && observer < players);
    const int team = team_of(s, observer);

    // Team-relative chips: relative team k is team (team + k) mod teams, the order seats play in.
    for (int k = 0; k < kMaxTeams; ++k) {
        const int t = team + k < teams ? team + k : team + k - teams;
        write_plane(out + (kPlaneOwnChips + k) * kCells, k < teams ? s.chips[t] : Bitboard());
    }
    write_plane(out + kPlaneLocked * kCells, s.locked);
    write_plane(out + kPlaneCorners * kCells, corners());
    Move m{};
    Bitboard pending_cell, declared;
    if (pending.active()) {
        m = Move::from_id(pending.move);
        pending_cell = Bitboard::of(m.cell);
        std::uint8_t windows[2 * kDirections];
        const int n = declared_windows(m.cell, m.declares, windows);
        for (int i = 0; i < n; ++i) declared |= window_mask(windows[i]);
    }
    write_plane(out + kPlanePendingCell * kCells, pending_cell);
    write_plane(out + kPlanePendingDeclared * kCells, declared);

    // The features: the card counts (written whole), then zeros and the other counts and flags.
    std::uint8_t count[64] = {};
    for (int i = 0; i < s.hand_count[observer]; ++i) ++count[s.hands[observer][i]];
    write_counts(out + kObsHand, count);
    std::memset(count, 0, sizeof count);
    const Card* discards = s.cards + kDeckSize - s.discard_size;  // the discard log (state.hpp), newest first
    for (int i = 0; i < s.discard_size; ++i) ++count[discards[i]];  // R9: public
    write_counts(out + kObsDiscards, count);
    static_assert(kObsHandSizes == kObsDiscards + kCardKinds, "the counts are followed by the fields zeroed here");
    std::memset(out + kObsHandSizes, 0, sizeof(float) * (kObservationSize - kObsHandSizes));
    for (int k = 0, p = observer; k < players; ++k, p = p + 1 == players ? 0 : p + 1)
        out[kObsHandSizes + k] = s.hand_count[p];
    out[kObsDrawPile] = s.draw_size;
    for (int i = 0; i < s.sequence_count; ++i)
        out[kObsSequences + (s.sequences[i].team - team + teams) % teams] += 1.0f;
    out[kObsTradedThisTurn] = s.traded_this_turn;
    out[kObsTurn] = static_cast<float>(s.turn);
    out[kObsMaxTurns] = static_cast<float>(s.max_turns);
    if (!is_over(s)) out[kObsToMove + (s.current_player - observer + players) % players] = 1.0f;
    out[kObsPlayers] = players;
    out[kObsTeams] = teams;
    out[kObsPasses] = s.passes;
    if (pending.active()) out[kObsPendingCard + m.card] = 1.0f;
}

}  // namespace SEQUENCE_ISA
}  // namespace sequence
