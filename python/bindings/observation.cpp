// The observation tensor (cpp/include/sequence/observation.hpp, docs/observation.md), written by
// the core straight into a numpy buffer: a new array or the caller's `out`.
#include <pybind11/numpy.h>

#include <climits>

#include "bindings.hpp"
#include "sequence/game.hpp"
#include "sequence/observation.hpp"

namespace sequence_bindings {
inline namespace SEQUENCE_ISA {

namespace {

using namespace sequence;

py::array_t<float> observation_tensor(const Game& g, const py::handle& player_arg, const py::handle& pending,
                                      const py::object& out_arg) {
    const int players = g.state().config.players;
    const int player = static_cast<int>(int_in_range(player_arg, "player", 0, players - 1));
    PendingPlacement p;
    if (!pending.is_none()) {
        p.move = static_cast<MoveId>(int_in_range(pending, "pending", 0, UINT32_MAX - 1));
        if (!is_valid_pending(g.state(), p))
            throw py::value_error("pending " + std::to_string(p.move) + " is not a placement waiting for its declares");
    }
    py::array_t<float> out = out_arg.is_none()
        ? py::array_t<float>(kObservationSize)
        : py::reinterpret_borrow<py::array_t<float>>(checked_out_array(out_arg, py::dtype::of<float>(), kObservationSize, "an observation"));
    write_observation(g.state(), p, player, out.mutable_data());
    return out;
}

}  // namespace

void init_observation(py::module_& m) {
    m.attr("OBSERVATION_SIZE") = kObservationSize;
    py::dict layout;  // name -> (offset, size), for the Python mirror's cross-check
    const char* planes[] = {"own_chips", "next_team_chips", "third_team_chips", "locked", "corners",
                            "pending_cell", "pending_declared"};
    static_assert(sizeof(planes) / sizeof(planes[0]) == kObservationPlanes);
    for (int i = 0; i < kObservationPlanes; ++i) layout[planes[i]] = py::make_tuple(i * kCells, kCells);
    layout["hand"] = py::make_tuple(kObsHand, kCardKinds);
    layout["discards"] = py::make_tuple(kObsDiscards, kCardKinds);
    layout["hand_sizes"] = py::make_tuple(kObsHandSizes, kMaxPlayers);
    layout["draw_pile"] = py::make_tuple(kObsDrawPile, 1);
    layout["sequences"] = py::make_tuple(kObsSequences, kMaxTeams);
    layout["traded_this_turn"] = py::make_tuple(kObsTradedThisTurn, 1);
    layout["turn"] = py::make_tuple(kObsTurn, 1);
    layout["max_turns"] = py::make_tuple(kObsMaxTurns, 1);
    layout["to_move"] = py::make_tuple(kObsToMove, kMaxPlayers);
    layout["players"] = py::make_tuple(kObsPlayers, 1);
    layout["teams"] = py::make_tuple(kObsTeams, 1);
    layout["passes"] = py::make_tuple(kObsPasses, 1);
    layout["pending_card"] = py::make_tuple(kObsPendingCard, kCardKinds);
    m.attr("OBSERVATION_LAYOUT") = layout;

    auto game = py::reinterpret_borrow<py::class_<Game>>(m.attr("Game"));
    game.def("observation_tensor", &observation_tensor, py::arg("player"), py::arg("pending") = py::none(),
              py::arg("out") = py::none(),
              "The observation of player (docs/observation.md) as a float32 array of OBSERVATION_SIZE, written by "
              "the core into a new array or into out. pending: None or the pending placement's move id.");
}

}  // namespace SEQUENCE_ISA
}  // namespace sequence_bindings
