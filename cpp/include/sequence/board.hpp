// The board (R1) as compile-time tables: which card each cell shows, the two cells of each card,
// the corners, and every five-cell line ("window", R7) with its cells, its mask and, per cell and
// direction, the five windows through that cell.
#pragma once

#include <cassert>
#include <cstdint>

#include "sequence/bitboard.hpp"
#include "sequence/cards.hpp"
#include "sequence/isa.hpp"

namespace sequence {
inline namespace SEQUENCE_ISA {

constexpr int kRows = 10;
constexpr int kCols = 10;
constexpr int kCorner = -1;  // card_at() of a corner cell

constexpr int cell_index(int row, int col) { return kCols * row + col; }
constexpr int row_of(int cell) { return cell / kCols; }
constexpr int col_of(int cell) { return cell % kCols; }

// The four line directions in the order of the move-id declares code (docs/notation.md).
enum Direction : int { kEast = 0, kSouth = 1, kSouthEast = 2, kSouthWest = 3 };
constexpr int kDirections = 4;
constexpr int kDirectionRow[kDirections] = {0, 1, 1, 1};
constexpr int kDirectionCol[kDirections] = {1, 0, 1, -1};
constexpr int kDirectionStep[kDirections] = {1, 10, 11, 9};  // cell index delta

constexpr int kWindowLength = 5;          // R7: a sequence is five cells in a line
constexpr int kWindowCount = 192;         // 60 horizontal + 60 vertical + 2 * 36 diagonal
constexpr std::uint8_t kNoWindow = 0xFF;
constexpr std::uint8_t kNoCell = 0xFF;

namespace detail {

// R1, two characters per cell, "**" for a corner.
constexpr const char* kLayout[kRows] = {
    "**2S3S4S5S6S7S8S9S**",
    "6C5C4C3C2CAHKHQHTHTS",
    "7CAS2D3D4D5D6D7D9HQS",
    "8CKS6C5C4C3C2C8D8HKS",
    "9CQS7C6H5H4HAH9D7HAS",
    "TCTS8C7H2H3HKHTD6H2D",
    "QC9S9C8H9HTHQHQD5H3D",
    "KC8STCQCKCACADKD4H4D",
    "AC7S6S5S4S3S2S2H3H5D",
    "**ADKDQDTD9D8D7D6D**",
};

constexpr int layout_card(char rank, char suit) {
    if (rank == '*') return kCorner;
    constexpr const char* ranks = "23456789TJQKA";
    constexpr const char* suits = "SHDC";
    int r = 0, s = 0;
    while (ranks[r] != rank) ++r;
    while (suits[s] != suit) ++s;
    return make_card(r, s);
}

struct BoardTables {
    std::int8_t card_at[kCells] = {};
    std::uint8_t cells_of[kCardKinds][2] = {};  // ascending; kNoCell for jacks
    Bitboard card_cells[kCardKinds] = {};       // the two cells of a normal card
    Bitboard corners;
    // Windows are numbered in the order of their sorted cell tuples (start cell, then step
    // 1 < 9 < 10 < 11), so comparing window ids compares declared sequences as
    // docs/notation.md orders them.
    std::uint8_t window_cells[kWindowCount][kWindowLength] = {};
    Bitboard window_mask[kWindowCount] = {};
    // window_at[cell][dir][k]: the window in direction dir that starts k steps before cell
    // (so it contains cell), or kNoWindow if it leaves the board.
    std::uint8_t window_at[kCells][kDirections][kWindowLength] = {};
    // window_start[dir]: the cells where a window in direction dir starts (its lowest cell).
    Bitboard window_start[kDirections] = {};
    // segment[cell][dir]: the cells at most 4 steps from cell along dir, either way, cell included:
    // every window through cell in that direction lies inside it (a cheap R7 pre-filter).
    Bitboard segment[kCells][kDirections] = {};
    int window_count = 0;
};

constexpr bool on_board(int row, int col) { return row >= 0 && row < kRows && col >= 0 && col < kCols; }

constexpr BoardTables build_tables() {
    BoardTables t{};
    for (int c = 0; c < kCardKinds; ++c) t.cells_of[c][0] = t.cells_of[c][1] = kNoCell;
    for (int cell = 0; cell < kCells; ++cell) {
        const int card = layout_card(kLayout[row_of(cell)][2 * col_of(cell)], kLayout[row_of(cell)][2 * col_of(cell) + 1]);
        t.card_at[cell] = static_cast<std::int8_t>(card);
        if (card == kCorner) {
            t.corners.set(cell);
            continue;
        }
        t.cells_of[card][t.cells_of[card][0] == kNoCell ? 0 : 1] = static_cast<std::uint8_t>(cell);
        t.card_cells[card].set(cell);
    }
    for (int cell = 0; cell < kCells; ++cell)
        for (int d = 0; d < kDirections; ++d)
            for (int k = 0; k < kWindowLength; ++k) t.window_at[cell][d][k] = kNoWindow;
    constexpr int kStepOrder[kDirections] = {kEast, kSouthWest, kSouth, kSouthEast};
    int id = 0;
    for (int start = 0; start < kCells; ++start) {
        for (int d : kStepOrder) {
            const int r = row_of(start), c = col_of(start);
            if (!on_board(r + 4 * kDirectionRow[d], c + 4 * kDirectionCol[d])) continue;
            for (int i = 0; i < kWindowLength; ++i) {
                const int cell = cell_index(r + i * kDirectionRow[d], c + i * kDirectionCol[d]);
                t.window_cells[id][i] = static_cast<std::uint8_t>(cell);
                t.window_mask[id].set(cell);
                t.window_at[cell][d][i] = static_cast<std::uint8_t>(id);
            }
            t.window_start[d].set(start);
            ++id;
        }
    }
    // segment[cell][d] is the union of the windows through cell; window_mask is complete only
    // once all windows are built, so fill the unions in a second pass.
    for (int cell = 0; cell < kCells; ++cell)
        for (int d = 0; d < kDirections; ++d) {
            t.segment[cell][d] = Bitboard();
            for (int k = 0; k < kWindowLength; ++k)
                if (t.window_at[cell][d][k] != kNoWindow) t.segment[cell][d] |= t.window_mask[t.window_at[cell][d][k]];
        }
    t.window_count = id;
    return t;
}

}  // namespace detail

inline constexpr detail::BoardTables kBoard = detail::build_tables();

// The card printed on a cell (R1), or kCorner. Requires 0 <= cell < kCells.
constexpr int card_at(int cell) {
    assert(cell >= 0 && cell < kCells);
    return kBoard.card_at[cell];
}
// The two cells of a normal card, ascending (R1). Requires is_normal_card(card).
constexpr int cell_of(int card, int which) {
    assert(is_normal_card(card) && (which == 0 || which == 1));
    return kBoard.cells_of[card][which];
}
// The mask of a normal card's two cells; empty for jacks.
constexpr Bitboard card_cells(int card) { return kBoard.card_cells[card]; }
// The four corner cells: free spaces that count for every team (R1, R7).
constexpr Bitboard corners() { return kBoard.corners; }
constexpr bool is_corner(int cell) { return kBoard.corners.test(cell); }
constexpr Bitboard window_mask(int window) { return kBoard.window_mask[window]; }
// The k-th cell (ascending) of a window.
constexpr int window_cell(int window, int k) { return kBoard.window_cells[window][k]; }
// The window in direction dir starting k steps before cell, or kNoWindow.
constexpr int window_at(int cell, int dir, int k) { return kBoard.window_at[cell][dir][k]; }
// The cells where a window in direction dir starts (its lowest cell).
constexpr Bitboard window_starts(int dir) { return kBoard.window_start[dir]; }
// The union of the windows through cell in direction dir (at most 9 cells in a line).
constexpr Bitboard segment(int cell, int dir) { return kBoard.segment[cell][dir]; }
// The window whose ascending cells are exactly cells[0..4], or -1 if they are not a line.
int find_window(const int cells[kWindowLength]);

}  // namespace SEQUENCE_ISA
}  // namespace sequence
