// The static evaluations of a position for Python (training and tests): _core.eval_features (the
// learned evaluation's features, cpp/include/sequence/search/features.hpp), _core.EVAL_FEATURES
// (their names, in order), _core.learned_rewards and _core.handset_rewards (the two evaluations'
// rewards per team, as the search scores a playout leaf).
#include <pybind11/numpy.h>

#include <string>

#include "bindings.hpp"
#include "search_options.hpp"
#include "sequence/game.hpp"
#include "sequence/search/evaluate.hpp"
#include "sequence/search/features.hpp"

namespace sequence_bindings {
inline namespace SEQUENCE_ISA {

namespace {

using namespace sequence;

py::list rewards_list(const GameState& s, const float r[kMaxTeams]) {
    py::list out;
    for (int t = 0; t < s.config.teams; ++t) out.append(static_cast<double>(r[t]));
    return out;
}

}  // namespace

void init_evaluation(py::module_& m) {
    py::tuple names(static_cast<std::size_t>(kEvalFeatures));
    for (int i = 0; i < kEvalFeatures; ++i) names[i] = py::str(eval_feature_name(i));
    m.attr("EVAL_FEATURES") = names;
    m.def(
        "eval_features",
        [](const Game& game) {
            const GameState& s = game.state();
            float f[kMaxTeams][kEvalFeatures];
            eval_features(s, f);
            py::array_t<float> out({static_cast<py::ssize_t>(s.config.teams), static_cast<py::ssize_t>(kEvalFeatures)});
            auto a = out.mutable_unchecked<2>();
            for (int t = 0; t < s.config.teams; ++t)
                for (int i = 0; i < kEvalFeatures; ++i) a(t, i) = f[t][i];
            return out;
        },
        py::arg("state"),
        "The learned evaluation's features of the position, a (teams, len(EVAL_FEATURES)) float32 array "
        "(cpp/include/sequence/search/features.hpp). Row t reads only public information and the hands of "
        "team t's own players (never another team's hand or the draw pile): the training tool reads the "
        "real positions of finished self-play games, the search its determinized worlds.");
    m.def(
        "learned_rewards",
        [](const Game& game, const LearnedWeights& w) {
            float r[kMaxTeams];
            learned_rewards(game.state(), w, r);
            return rewards_list(game.state(), r);
        },
        py::arg("state"), py::arg("weights"),
        "[reward per team] of the learned evaluation with these LearnedWeights (exact for a finished game).");
    m.def(
        "handset_rewards",
        [](const Game& game, const EvalWeights& w) {
            float r[kMaxTeams];
            evaluate_rewards(game.state(), w, r);
            return rewards_list(game.state(), r);
        },
        py::arg("state"), py::arg("weights") = EvalWeights{},
        "[reward per team] of the hand-set evaluation (cpp/include/sequence/search/evaluate.hpp) with these "
        "EvalWeights (exact for a finished game).");
}

}  // namespace SEQUENCE_ISA
}  // namespace sequence_bindings
