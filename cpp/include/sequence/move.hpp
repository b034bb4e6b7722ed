// A move as a value and as the 32-bit id the binding passes around (docs/notation.md "Move ids"):
// bits 0-1 kind, 2-7 card id, 8-14 cell index, 15-26 declares (3 bits per direction, in the
// order east, south, south-east, south-west). Fields a kind does not use are zero.
#pragma once

#include <cstdint>

#include "sequence/isa.hpp"

namespace sequence {
inline namespace SEQUENCE_ISA {

using MoveId = std::uint32_t;

enum class MoveKind : std::uint8_t { Trade = 0, Place = 1, Remove = 2, Pass = 3 };

// Declares code of one direction: 0 none, 1..5 the single window starting (v - 1) steps before the
// placed cell, kDeclarePair the two windows starting 4 steps before it and at it (R7: 9 in a row).
constexpr int kDeclareNone = 0;
constexpr int kDeclarePair = 6;
constexpr int kDeclareBits = 3;

struct Move {
    MoveKind kind = MoveKind::Pass;
    std::uint8_t card = 0;
    std::uint8_t cell = 0;
    std::uint16_t declares = 0;  // 4 x 3 bits

    static constexpr Move trade(int card) { return {MoveKind::Trade, std::uint8_t(card), 0, 0}; }
    static constexpr Move place(int card, int cell, int declares = 0) {
        return {MoveKind::Place, std::uint8_t(card), std::uint8_t(cell), std::uint16_t(declares)};
    }
    static constexpr Move remove(int card, int cell) { return {MoveKind::Remove, std::uint8_t(card), std::uint8_t(cell), 0}; }
    static constexpr Move pass() { return {}; }

    // The declares code of one direction (0..7; 7 never occurs in a well-formed move).
    constexpr int declare(int dir) const { return (declares >> (kDeclareBits * dir)) & 7; }

    constexpr MoveId id() const {
        return MoveId(kind) | MoveId(card) << 2 | MoveId(cell) << 8 | MoveId(declares) << 15;
    }
    // Decodes any 32-bit value; only the low 27 bits are read (check_move() rejects the rest).
    static constexpr Move from_id(MoveId id) {
        return {MoveKind(id & 3), std::uint8_t((id >> 2) & 63), std::uint8_t((id >> 8) & 127),
                std::uint16_t((id >> 15) & 0xFFF)};
    }
    constexpr bool operator==(const Move& o) const { return id() == o.id(); }
};

// The declares code with direction dir set to v.
constexpr int with_declare(int declares, int dir, int v) { return declares | v << (kDeclareBits * dir); }

static_assert(Move::from_id(Move::place(37, 99, 06543).id()).id() == Move::place(37, 99, 06543).id());
static_assert(Move::pass().id() == 3);

}  // namespace SEQUENCE_ISA
}  // namespace sequence
