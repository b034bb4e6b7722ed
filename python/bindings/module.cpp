// sequence_game._core: the compiled core (cpp/) for the Python package.
#include "bindings.hpp"

void init_search(py::module_& m);  // search.cpp

PYBIND11_MODULE(_core, m) {
    m.doc() = "The compiled Sequence core: GameState, rules and move ids (docs/notation.md).";
    init_cards(m);
    init_state(m);
    init_search(m);
}
