// Bitboard: a set of board cells in 128 bits.
//
// Bit index = cell index (10 * row + col, 0..99); bits 100..127 are always zero. A padded 10 x 11
// layout only pays off when lines are found by shifting whole boards; here every five-cell line is
// a precomputed mask (board.hpp), so padding would buy nothing and cost an index conversion at
// every API boundary and table lookup.
#pragma once

#include <cassert>
#include <cstdint>

#include "sequence/cpu.hpp"
#include "sequence/isa.hpp"

namespace sequence {
inline namespace SEQUENCE_ISA {

constexpr int kCells = 100;

namespace detail {
inline int popcount64(std::uint64_t x) { return bits::popcount64(x); }
inline int lsb64(std::uint64_t x) { return bits::ctz64(x); }

#if !SEQUENCE_HAS_BMI2
// The position of the j-th set bit of each byte value (0 past its count), for select64 below.
struct SelectInByte {
    std::uint8_t pos[8][256];
    constexpr SelectInByte() : pos() {
        for (int b = 0; b < 256; ++b)
            for (int i = 0, j = 0; i < 8; ++i)
                if (b >> i & 1) pos[j++][b] = static_cast<std::uint8_t>(i);
    }
};
inline constexpr SelectInByte kSelectInByte{};
#endif

// Index of the n-th (0-based) set bit of x. Requires n < popcount64(x). One pdep with BMI2; else
// broadword: the running popcount of the bytes finds the byte, a table the bit (no loop over n).
inline int select64(std::uint64_t x, int n) {
    assert(n >= 0 && n < popcount64(x));
#if SEQUENCE_HAS_BMI2
    return bits::ctz64(bits::pdep64(std::uint64_t{1} << n, x));
#else
    constexpr std::uint64_t kOnes = 0x0101010101010101ull, kHighs = 0x8080808080808080ull;
    std::uint64_t c = x - ((x >> 1) & 0x5555555555555555ull);
    c = (c & 0x3333333333333333ull) + ((c >> 2) & 0x3333333333333333ull);
    c = ((c + (c >> 4)) & 0x0F0F0F0F0F0F0F0Full) * kOnes;  // byte i: set bits in bytes 0..i (<= 64)
    // The first byte whose running count exceeds n: every byte | 0x80 stays >= 0x80 after
    // subtracting n + 1 <= 64, so the bytes never borrow from each other.
    const std::uint64_t above = ((c | kHighs) - kOnes * static_cast<std::uint64_t>(n + 1)) & kHighs;
    const int byte = bits::ctz64(above) >> 3;
    const int before = byte == 0 ? 0 : static_cast<int>((c >> (8 * byte - 8)) & 0xFF);
    return 8 * byte + kSelectInByte.pos[n - before][(x >> (8 * byte)) & 0xFF];
#endif
}
}  // namespace detail

class Bitboard {
public:
    constexpr Bitboard() = default;
    constexpr Bitboard(std::uint64_t lo, std::uint64_t hi) : lo_(lo), hi_(hi) {}
    constexpr std::uint64_t lo() const { return lo_; }  // cells 0..63
    constexpr std::uint64_t hi() const { return hi_; }  // cells 64..99 (bits 0..35)

    // The set {cell}. Requires 0 <= cell < kCells.
    static constexpr Bitboard of(int cell) {
        assert(cell >= 0 && cell < kCells);
        return cell < 64 ? Bitboard(std::uint64_t{1} << cell, 0) : Bitboard(0, std::uint64_t{1} << (cell - 64));
    }
    // All 100 cells.
    static constexpr Bitboard all() { return Bitboard(~std::uint64_t{0}, (std::uint64_t{1} << (kCells - 64)) - 1); }

    constexpr bool test(int cell) const {
        return cell < 64 ? (lo_ >> cell) & 1 : (hi_ >> (cell - 64)) & 1;
    }
    constexpr void set(int cell) { *this |= of(cell); }
    constexpr void reset(int cell) { *this &= ~of(cell); }

    constexpr bool any() const { return (lo_ | hi_) != 0; }
    constexpr bool none() const { return !any(); }
    int count() const {
#if SEQUENCE_FAST_POPCOUNT
        return bits::popcount64(lo_) + bits::popcount64(hi_);
#else  // SWAR: the two halves' byte counts (<= 8 each) are added before the one multiply
        return static_cast<int>(((bits::popcount_bytes(lo_) + bits::popcount_bytes(hi_)) * 0x0101010101010101ull) >> 56);
#endif
    }
    // The n-th lowest cell (0-based), for picking a uniformly random member. Requires n < count().
    int select(int n) const {
        assert(n >= 0 && n < count());
        const int low = detail::popcount64(lo_);
        return n < low ? detail::select64(lo_, n) : 64 + detail::select64(hi_, n - low);
    }
    // True if this set is a subset of other.
    constexpr bool subset_of(Bitboard other) const { return (*this & ~other).none(); }

    constexpr Bitboard operator&(Bitboard o) const { return Bitboard(lo_ & o.lo_, hi_ & o.hi_); }
    constexpr Bitboard operator|(Bitboard o) const { return Bitboard(lo_ | o.lo_, hi_ | o.hi_); }
    constexpr Bitboard operator^(Bitboard o) const { return Bitboard(lo_ ^ o.lo_, hi_ ^ o.hi_); }
    // Complement within the 100 cells (bits 100..127 stay zero).
    constexpr Bitboard operator~() const { return Bitboard(~lo_, ~hi_) & all(); }
    constexpr Bitboard& operator&=(Bitboard o) { return *this = *this & o; }
    constexpr Bitboard& operator|=(Bitboard o) { return *this = *this | o; }
    constexpr bool operator==(Bitboard o) const { return lo_ == o.lo_ && hi_ == o.hi_; }
    constexpr bool operator!=(Bitboard o) const { return !(*this == o); }

    // Ascending iteration over the cells: for (int cell : board) ...
    class Iterator {
    public:
        Iterator(std::uint64_t lo, std::uint64_t hi) : lo_(lo), hi_(hi) {}
        int operator*() const { return lo_ ? detail::lsb64(lo_) : 64 + detail::lsb64(hi_); }
        Iterator& operator++() {
            if (lo_) lo_ &= lo_ - 1; else hi_ &= hi_ - 1;
            return *this;
        }
        bool operator!=(const Iterator& o) const { return lo_ != o.lo_ || hi_ != o.hi_; }
    private:
        std::uint64_t lo_, hi_;
    };
    Iterator begin() const { return Iterator(lo_, hi_); }
    Iterator end() const { return Iterator(0, 0); }

private:
    std::uint64_t lo_ = 0;  // cells 0..63
    std::uint64_t hi_ = 0;  // cells 64..99
};

// Bitboard::of(cell) without a branch on the half: where the cell is random (playing a move, the
// playouts) that branch mispredicts about once in three. Requires 0 <= cell < kCells.
inline Bitboard cell_bit(int cell) {
    assert(cell >= 0 && cell < kCells);
    const std::uint64_t bit = std::uint64_t{1} << (cell & 63);
    const std::uint64_t in_hi = -static_cast<std::uint64_t>(cell >= 64);
    return Bitboard(bit & ~in_hi, bit & in_hi);
}

}  // namespace SEQUENCE_ISA
}  // namespace sequence
