#include "sequence/board.hpp"

namespace sequence {
inline namespace SEQUENCE_ISA {

static_assert(detail::kLayout[0][0] == '*' && card_at(0) == kCorner && card_at(99) == kCorner);
static_assert(card_at(1) == make_card(0, 0), "row 0 starts with 2S");
static_assert(kBoard.window_count == kWindowCount);
static_assert(kBoard.window_at[99][kSouthEast][4] != kNoWindow, "the last window ends at j10");

int find_window(const int cells[kWindowLength]) {
    if (cells[0] < 0 || cells[0] >= kCells) return -1;
    for (int d = 0; d < kDirections; ++d) {
        const int w = window_at(cells[0], d, 0);
        if (w == kNoWindow) continue;
        bool same = true;
        for (int i = 0; i < kWindowLength; ++i) same = same && window_cell(w, i) == cells[i];
        if (same) return w;
    }
    return -1;
}

}  // namespace SEQUENCE_ISA
}  // namespace sequence
