// Board and card tables for cross-checks against the Python side (R1).
#include "bindings.hpp"
#include "sequence/board.hpp"

namespace sequence_bindings {
using namespace sequence;

py::tuple cells_of(const py::handle& card_arg) {
    const int card = static_cast<int>(int_in_range(card_arg, "card_id", 0, kCardKinds - 1));
    if (is_jack(card)) return py::tuple();
    return py::make_tuple(cell_of(card, 0), cell_of(card, 1));
}
}  // namespace sequence_bindings

void init_cards(py::module_& m) {
    using namespace sequence;
    m.def("cells_of", &sequence_bindings::cells_of, py::arg("card_id"),
          "The two cell indices (ascending) of a normal card id; () for jacks (R1).");
    py::list board;
    for (int cell = 0; cell < kCells; ++cell) board.append(card_at(cell));
    m.attr("BOARD") = board;
    m.attr("STATE_BYTES") = sizeof(GameState);
}
