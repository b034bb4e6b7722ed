// sequence_game._core: the compiled core (cpp/) for the Python package; dispatch.cpp defines the
// module and calls bind_module() of the instruction-set path it runs.
#include "bindings.hpp"

namespace sequence_bindings {
inline namespace SEQUENCE_ISA {

void init_search(py::module_& m);  // search.cpp
void init_vector(py::module_& m);  // vector.cpp
void init_actions(py::module_& m);  // actions.cpp
void init_observation(py::module_& m);  // observation.cpp
void init_evaluation(py::module_& m);  // evaluation.cpp
void init_net(py::module_& m);  // net.cpp

void bind_module(py::module_& m) {
    m.doc() = "The compiled Sequence core: GameState, rules and move ids (docs/notation.md).";
    init_cards(m);
    init_game(m);
    init_actions(m);
    init_observation(m);
    init_search(m);
    init_evaluation(m);
    init_vector(m);
    init_net(m);
}

}  // namespace SEQUENCE_ISA
}  // namespace sequence_bindings
