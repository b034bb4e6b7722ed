// The learned player's network for Python: _core.Net (a weights file evaluated in the core,
// cpp/include/sequence/net.hpp) and _core.net_policy (one evaluation for a game's player to move;
// the search it guides is bound with the others, search.cpp). The GIL is released while they run;
// a damaged weights file is a ValueError saying what is wrong.
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "bindings.hpp"
#include "sequence/actions.hpp"
#include "sequence/game.hpp"
#include "sequence/net.hpp"
#include "sequence/observation.hpp"
#include "sequence/search/puct.hpp"  // net_policy()

namespace sequence_bindings {
inline namespace SEQUENCE_ISA {

namespace {

using namespace sequence;
using FloatArray = py::array_t<float, py::array::c_style | py::array::forcecast>;

std::shared_ptr<Net> net_from(const py::handle& source) {
    if (py::isinstance<py::bytes>(source)) {
        const std::string data = source.cast<std::string>();
        std::shared_ptr<Net> net;
        {
            py::gil_scoped_release release;
            net = std::make_shared<Net>(Net::from_bytes(reinterpret_cast<const std::uint8_t*>(data.data()), data.size()));
        }
        return net;
    }
    if (py::isinstance<py::str>(source) || py::hasattr(source, "__fspath__")) {
        const std::string path = py::str(py::module_::import("os").attr("fspath")(source));
        return std::make_shared<Net>(Net::from_file(path));
    }
    throw py::type_error("Net takes a weights file's path or its bytes, not " +
                         std::string(py::str(py::type::of(source).attr("__name__"))));
}

const GameState& to_move(const Game& game) {
    if (is_over(game.state())) throw py::value_error("the game is over: there is no player to move");
    return game.state();
}

}  // namespace

void init_net(py::module_& m) {
    py::class_<Net, std::shared_ptr<Net>>(m, "Net", R"doc(The policy-value network evaluated in the core.

Net(source): source is a weights file's path or its bytes (format: sequence_game.netfile). A file
whose magic, version, shapes, size or checksum disagree, or that holds a non-finite weight, raises
ValueError saying which.)doc")
        .def(py::init(&net_from), py::arg("source"))
        .def_property_readonly("hidden1", &Net::hidden1)
        .def_property_readonly("hidden2", &Net::hidden2)
        .def_property_readonly("parameters", &Net::parameters)
        .def("evaluate", [](const Net& net, const py::handle& obs_arg, const py::handle& actions_arg) {
            // obs: 890 floats (an observation tensor); actions: action ids 0..5252.
            const FloatArray obs = FloatArray::ensure(obs_arg);
            if (!obs || obs.ndim() != 1 || obs.shape(0) != kObservationSize)
                throw py::value_error("obs must be a float array of shape (" + std::to_string(kObservationSize) + ",)");
            const py::array_t<long long, py::array::c_style | py::array::forcecast> acts =
                py::array_t<long long, py::array::c_style | py::array::forcecast>::ensure(actions_arg);
            if (!acts || acts.ndim() != 1)
                throw py::value_error("actions must be a one-dimensional integer array");
            std::vector<int> a(static_cast<std::size_t>(acts.shape(0)));
            for (std::size_t i = 0; i < a.size(); ++i) {
                const long long v = acts.at(static_cast<py::ssize_t>(i));
                if (v < 0 || v >= kActionCount)
                    throw py::value_error("actions[" + std::to_string(i) + "] = " + std::to_string(v) +
                                          " is not an action 0.." + std::to_string(kActionCount - 1));
                a[i] = static_cast<int>(v);
            }
            for (py::ssize_t i = 0; i < obs.shape(0); ++i)
                if (!std::isfinite(obs.at(i))) throw py::value_error("obs holds a non-finite number");
            py::array_t<float> logits(static_cast<py::ssize_t>(a.size()));
            py::array_t<float> value(kNetValueOutputs);
            NetWorkspace ws = net.workspace();
            float* lp = logits.mutable_data();
            float* vp = value.mutable_data();
            const float* op = obs.data();
            {
                py::gil_scoped_release release;
                net.evaluate(op, a.data(), static_cast<int>(a.size()), lp, vp, ws);
            }
            return py::make_tuple(logits, value);
        }, py::arg("obs"), py::arg("actions"),
             "(logits of the given actions, win probability per relative team) for one observation tensor.");

    m.def("net_policy", [](const Game& game, const Net& net) {
        const GameState s = to_move(game);
        std::vector<MoveId> moves(kMoveListCapacity);
        std::vector<float> probs(kMoveListCapacity);
        float value[kMaxTeams];
        int n = 0;
        {
            py::gil_scoped_release release;
            NetWorkspace ws = net.workspace();
            n = net_policy(s, net, ws, moves.data(), probs.data(), kMoveListCapacity, value);
        }
        moves.resize(static_cast<std::size_t>(n));
        probs.resize(static_cast<std::size_t>(n));
        std::vector<float> v(value, value + s.config.teams);
        return py::make_tuple(moves, probs, v);
    }, py::arg("game"), py::arg("net"),
          "(legal move ids, the network's probability of each, win probability per team) for the player to move, "
          "read from that player's observation only (R9).");
}

}  // namespace SEQUENCE_ISA
}  // namespace sequence_bindings
