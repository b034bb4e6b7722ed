// Bit-parallel work on all 192 five-cell windows (R7 lines) at once: one 64-bit lane per direction
// (bits::U64x4: one AVX2 register for the four lanes, plain scalar code without it), a
// board as two lane sets (cells 0-63, 64-99). Bit x of a lane stands for the window that starts at
// cell x in that lane's direction.
#pragma once

#include <cstdint>

#include "sequence/bitboard.hpp"
#include "sequence/board.hpp"
#include "sequence/isa.hpp"

namespace sequence {
inline namespace SEQUENCE_ISA {

using Lanes = bits::U64x4;

// A board per direction lane: lo = cells 0-63, hi = cells 64-99.
struct WindowLanes {
    Lanes lo, hi;
    WindowLanes operator&(const WindowLanes& o) const { return {lo & o.lo, hi & o.hi}; }
    WindowLanes operator|(const WindowLanes& o) const { return {lo | o.lo, hi | o.hi}; }
    WindowLanes operator^(const WindowLanes& o) const { return {lo ^ o.lo, hi ^ o.hi}; }
    WindowLanes operator~() const { return {~lo, ~hi}; }
    // Set bits over all lanes.
    int count() const {
        int n = 0;
        for (int d = 0; d < kDirections; ++d) n += detail::popcount64(lo[d]) + detail::popcount64(hi[d]);
        return n;
    }
    // The union of the lanes as one board.
    Bitboard merged() const { return Bitboard(lo[0] | lo[1] | lo[2] | lo[3], hi[0] | hi[1] | hi[2] | hi[3]); }
};

// The windows on the board: bit x of lane d = a window starts at cell x in direction d.
inline constexpr WindowLanes kWindowStarts = {
    {window_starts(0).lo(), window_starts(1).lo(), window_starts(2).lo(), window_starts(3).lo()},
    {window_starts(0).hi(), window_starts(1).hi(), window_starts(2).hi(), window_starts(3).hi()},
};
inline constexpr Lanes kLaneStep = {kDirectionStep[0], kDirectionStep[1], kDirectionStep[2], kDirectionStep[3]};

// cells[i]: bit x of lane d = the i-th cell of the window starting at x in direction d is in b
// (b shifted right by i steps, as a 128-bit value; 1 <= shift <= 44).
inline void window_cells(Bitboard b, WindowLanes cells[kWindowLength]) {
    const Lanes lo = {b.lo(), b.lo(), b.lo(), b.lo()};
    const Lanes hi = {b.hi(), b.hi(), b.hi(), b.hi()};
    cells[0] = {lo, hi};
    for (int i = 1; i < kWindowLength; ++i) {
        const Lanes sh = kLaneStep * i;
        cells[i] = {(lo >> sh) | (hi << (64 - sh)), hi >> sh};
    }
}

// The i-th cells of the windows in w, as a board (w shifted left by i steps per lane, merged).
inline Bitboard window_cell_board(const WindowLanes& w, int i) {
    if (i == 0) return w.merged();
    const Lanes sh = kLaneStep * i;
    const WindowLanes cell = {w.lo << sh, (w.hi << sh) | (w.lo >> (64 - sh))};
    return cell.merged() & Bitboard::all();
}

// How many of the five cells[i] bits are set, bit-sliced: count = ones + 2 * twos + 4 * fours.
struct WindowCounts {
    WindowLanes ones, twos, fours;
    WindowLanes equal(int k) const {
        const WindowLanes o = k & 1 ? ones : ~ones, t = k & 2 ? twos : ~twos, f = k & 4 ? fours : ~fours;
        return o & t & f;
    }
};
inline WindowCounts count_window_cells(const WindowLanes c[kWindowLength]) {
    // Full adders: each carry pair is exclusive, so the carries add without a further carry chain.
    const WindowLanes s1 = c[0] ^ c[1], c1 = c[0] & c[1];
    const WindowLanes s2 = s1 ^ c[2], c2 = s1 & c[2];
    const WindowLanes s3 = s2 ^ c[3], c3 = s2 & c[3];
    const WindowLanes s4 = s3 ^ c[4], c4 = s3 & c[4];
    const WindowLanes t1 = c1 | c2, t2 = c3 | c4;
    return {s4, t1 ^ t2, t1 & t2};
}

}  // namespace SEQUENCE_ISA
}  // namespace sequence
