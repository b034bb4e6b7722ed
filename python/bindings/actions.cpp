// The fixed action space (cpp/include/sequence/actions.hpp, docs/action-space.md): its constants
// for the Python mirror's cross-check, and the legal-action mask and action resolution of a State.
// A pending placement crosses the binding as its move id (None when nothing is pending) and is
// checked before use, so no argument can reach the core in a state it does not expect.
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <climits>

#include "bindings.hpp"
#include "sequence/actions.hpp"
#include "sequence/game.hpp"

namespace sequence_bindings {
inline namespace SEQUENCE_ISA {

namespace {

using namespace sequence;

int action_arg(const py::handle& a) { return static_cast<int>(int_in_range(a, "action", 0, kActionCount - 1)); }

PendingPlacement pending_arg(const Game& g, const py::handle& pending) {
    PendingPlacement p;
    if (pending.is_none()) return p;
    p.move = static_cast<MoveId>(int_in_range(pending, "pending", 0, UINT32_MAX - 1));
    if (!is_valid_pending(g.state(), p))
        throw py::value_error("pending " + std::to_string(p.move) +
                              " is not a placement waiting for its declares in this position (docs/action-space.md)");
    return p;
}

py::array_t<bool> legal_mask(const Game& g, const py::handle& pending, const py::object& out_arg) {
    const PendingPlacement p = pending_arg(g, pending);
    py::array_t<bool> out = out_arg.is_none()
        ? py::array_t<bool>(kActionCount)
        : py::reinterpret_borrow<py::array_t<bool>>(checked_out_array(out_arg, py::dtype::of<bool>(), kActionCount, "a legal-action mask"));
    static_assert(sizeof(bool) == 1, "numpy bools are bytes");
    legal_action_mask(g.state(), p, reinterpret_cast<std::uint8_t*>(out.mutable_data()));
    return out;
}

py::list legal_action_list(const Game& g, const py::handle& pending) {
    const PendingPlacement p = pending_arg(g, pending);
    int actions[kActionCount];
    const int n = legal_actions(g.state(), p, actions);
    py::list out(n);
    for (int i = 0; i < n; ++i) out[i] = py::int_(actions[i]);
    return out;
}

py::object resolve(const Game& g, const py::handle& action_handle, const py::handle& pending) {
    const int action = action_arg(action_handle);
    PendingPlacement p = pending_arg(g, pending);
    MoveId move = 0;
    switch (resolve_action(g.state(), p, action, move)) {
        case ActionOutcome::Illegal: return py::none();
        case ActionOutcome::Pending: return py::make_tuple("pending", p.move);
        case ActionOutcome::Move: return py::make_tuple("move", move);
    }
    return py::none();
}

}  // namespace

py::object checked_out_array(const py::object& out, const py::object& dtype, long size, const std::string& what) {
    const std::string shape = "numpy " + std::string(py::str(dtype)) + " array of shape (" + std::to_string(size) + ",)";
    if (!py::isinstance<py::array>(out) || !py::object(out.attr("dtype")).equal(dtype))
        throw py::type_error("out must be a " + shape + " for " + what + ", not " + std::string(py::repr(out)).substr(0, 80));
    const auto arr = py::reinterpret_borrow<py::array>(out);
    if (arr.ndim() != 1 || arr.shape(0) != size || !(arr.flags() & py::array::c_style) || !arr.writeable())
        throw py::value_error("out must be a writable, contiguous " + shape + " for " + what);
    return out;
}

void init_actions(py::module_& m) {
    m.attr("ACTION_COUNT") = kActionCount;
    m.attr("TRADE_ACTION_BASE") = kTradeActionBase;
    m.attr("PASS_ACTION") = kPassAction;
    m.attr("CORNER_CELLS") = py::make_tuple(kCornerCells[0], kCornerCells[1], kCornerCells[2], kCornerCells[3]);
    m.def("declare_action", [](const py::handle& w) {
        return declare_action(static_cast<int>(int_in_range(w, "window", 0, kWindowCount - 1)));
    }, py::arg("window"), "The declare action of a window id (board.hpp numbering).");
    m.def("window_of_action", [](const py::handle& a) -> py::object {
        const int w = window_of_action(action_arg(a));
        return w < 0 ? py::object(py::none()) : py::object(py::int_(w));
    }, py::arg("action"), "The window a declare action names, or None.");
    m.def("action_of_move_id", [](const py::handle& id) {
        return action_of_move(static_cast<MoveId>(int_in_range(id, "move_id", 0, UINT32_MAX)));
    }, py::arg("move_id"), "The action that starts a move (its placement/removal, trade or pass action).");
    m.def("window_cells", [](const py::handle& w) {
        const int window = static_cast<int>(int_in_range(w, "window", 0, kWindowCount - 1));
        py::tuple cells(kWindowLength);
        for (int i = 0; i < kWindowLength; ++i) cells[i] = py::int_(window_cell(window, i));
        return cells;
    }, py::arg("window"), "The five cell indices of a window, ascending (R7).");

    auto game = py::reinterpret_borrow<py::class_<Game>>(m.attr("Game"));
    game.def("legal_action_mask", &legal_mask, py::arg("pending") = py::none(), py::arg("out") = py::none(),
              "A numpy bool array of ACTION_COUNT: the legal actions now (docs/action-space.md). pending: "
              "None or the pending placement's move id. out: an array to write into instead of a new one.")
        .def("legal_actions", &legal_action_list, py::arg("pending") = py::none(),
             "The legal actions now, ascending.")
        .def("resolve_action", &resolve, py::arg("action"), py::arg("pending") = py::none(),
             "('move', move_id) if the action completes a legal move, ('pending', placement) if it starts or "
             "advances a placement with a declares choice (R7), None if it is not legal. The state is not changed.");
}

}  // namespace SEQUENCE_ISA
}  // namespace sequence_bindings
