// Board and card tables for cross-checks against the Python side (R1, sequence_game/board.py).
#include "bindings.hpp"
#include "sequence/board.hpp"

namespace sequence_bindings {
inline namespace SEQUENCE_ISA {

using namespace sequence;

py::tuple cells_of(const py::handle& card_arg) {
    const int card = static_cast<int>(int_in_range(card_arg, "card_id", 0, kCardKinds - 1));
    if (is_jack(card)) return py::tuple();
    return py::make_tuple(cell_of(card, 0), cell_of(card, 1));
}

void init_cards(py::module_& m) {
    using namespace sequence;
    m.def("cells_of", &cells_of, py::arg("card_id"),
          "The two cell indices (ascending) of a normal card id; () for jacks (R1).");
    py::list board;
    for (int cell = 0; cell < kCells; ++cell) board.append(card_at(cell));
    m.attr("BOARD") = board;
    // The window table and direction steps of board.hpp, for the cross-check with sequence_game.board
    // (tests/test_board.py; window_cells(w), in actions.cpp, gives the windows themselves).
    py::list window_at_cells;
    for (int cell = 0; cell < kCells; ++cell) {
        py::list dirs;
        for (int d = 0; d < kDirections; ++d) {
            py::tuple ks(kWindowLength);
            for (int k = 0; k < kWindowLength; ++k) {
                const int w = window_at(cell, d, k);
                ks[k] = w == kNoWindow ? py::object(py::none()) : py::object(py::int_(w));
            }
            dirs.append(ks);
        }
        window_at_cells.append(dirs);
    }
    m.attr("WINDOW_AT") = window_at_cells;
    py::tuple steps(kDirections);
    for (int d = 0; d < kDirections; ++d) steps[d] = py::int_(kDirectionStep[d]);
    m.attr("DIRECTION_STEPS") = steps;
}

}  // namespace SEQUENCE_ISA
}  // namespace sequence_bindings
