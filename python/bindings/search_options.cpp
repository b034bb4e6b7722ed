// The search options as Python values: _core.SearchOptions (ISMCTS), _core.RolloutOptions (rollout
// search), _core.EvalWeights (the static evaluation) and _core.PlayoutKind. Every field is a named
// keyword with the C++ default; a value is converted here (TypeError for a wrong type, a huge int
// becoming an out-of-range number rather than an OverflowError) and the whole struct is then checked
// by check_options() (cpp/src/search/options.cpp: ValueError with the bounds), at construction and
// on every assignment, so a bad value never reaches a search.
#include "search_options.hpp"

#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

namespace sequence_bindings {
inline namespace SEQUENCE_ISA {

namespace {

using namespace sequence;

std::string show(double x) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.6g", x);
    return buf;
}

// A float option as the shortest decimal that reads back as the same float (0.6f as 0.6, not
// 0.6000000238418579), so that a value given in Python compares equal to what is read back.
double float_value(float x) {
    char buf[40];
    for (int digits = 6; digits < 10; ++digits) {
        std::snprintf(buf, sizeof buf, "%.*g", digits, static_cast<double>(x));
        if (std::strtof(buf, nullptr) == x) break;
    }
    return std::strtod(buf, nullptr);
}

std::string type_name(const py::handle& v) { return Py_TYPE(v.ptr())->tp_name; }

// A real number (int or float, not bool) as a double; an int too large for a double becomes
// +-inf, which the range checks then refuse with the bounds.
double number(const py::handle& v, const std::string& name) {
    if (PyBool_Check(v.ptr()) || !(PyLong_Check(v.ptr()) || PyFloat_Check(v.ptr())))
        throw py::type_error(name + " must be a number, not " + type_name(v));
    if (PyFloat_Check(v.ptr())) return PyFloat_AsDouble(v.ptr());
    const double x = PyLong_AsDouble(v.ptr());
    if (x == -1.0 && PyErr_Occurred()) {  // OverflowError: beyond any bound
        PyErr_Clear();
        return Py_SIZE(v.ptr()) < 0 ? -HUGE_VAL : HUGE_VAL;
    }
    return x;
}

bool flag(const py::handle& v, const std::string& name) {
    if (!PyBool_Check(v.ptr())) throw py::type_error(name + " must be True or False, not " + type_name(v));
    return v.ptr() == Py_True;
}

// None or a count >= 1 (0 stands for none in C++).
std::uint64_t optional_count(const py::handle& v, const std::string& name) {
    if (v.is_none()) return 0;
    return static_cast<std::uint64_t>(int_in_range(v, name, 1, static_cast<long long>(OptionLimits::kMaxIterations)));
}

// None or a number of seconds; 0 stands for none, so 0 itself must be refused here.
double optional_seconds(const py::handle& v, const std::string& name) {
    if (v.is_none()) return 0.0;
    const double x = number(v, name);
    if (!(x > 0 && x <= OptionLimits::kMaxSeconds))
        throw py::value_error(name + " must be a number of seconds > 0 and at most " + std::to_string(static_cast<long>(OptionLimits::kMaxSeconds)) +
                              " (or None), not " + show(x));
    return x;
}

PlayoutKind playout_kind(const py::handle& v) {
    if (py::isinstance<PlayoutKind>(v)) return v.cast<PlayoutKind>();
    if (py::isinstance<py::str>(v)) {
        const std::string s = v.cast<std::string>();
        if (s == "random") return PlayoutKind::Random;
        if (s == "informed") return PlayoutKind::Informed;
        if (s == "greedy") return PlayoutKind::Greedy;
        throw py::value_error("playout must be 'random', 'informed' or 'greedy', not '" + s.substr(0, 40) + "'");
    }
    throw py::type_error("playout must be a PlayoutKind or 'random', 'informed' or 'greedy', not " + type_name(v));
}

InferenceKind inference_kind(const py::handle& v) {
    if (py::isinstance<InferenceKind>(v)) return v.cast<InferenceKind>();
    if (py::isinstance<py::str>(v)) {
        const std::string s = v.cast<std::string>();
        if (s == "off") return InferenceKind::Off;
        if (s == "recent") return InferenceKind::Recent;
        throw py::value_error("inference must be 'off' or 'recent', not '" + s.substr(0, 40) + "'");
    }
    throw py::type_error("inference must be an InferenceKind or 'off' or 'recent', not " + type_name(v));
}

const char* playout_name(PlayoutKind k) {
    switch (k) {
        case PlayoutKind::Random: return "random";
        case PlayoutKind::Greedy: return "greedy";
        case PlayoutKind::Informed: break;
    }
    return "informed";
}

// One named field of an options struct: how Python reads and writes it.
template <class T>
struct Field {
    const char* name;
    std::function<py::object(const T&)> get;
    std::function<void(T&, const py::handle&)> set;
};

const std::vector<Field<EvalWeights>>& weight_fields() {
    using W = EvalWeights;
    static const std::vector<Field<W>> fields = {
        {"window1", [](const W& w) { return py::cast(double(w.window[1])); }, [](W& w, const py::handle& v) { w.window[1] = float(number(v, "window1")); }},
        {"window2", [](const W& w) { return py::cast(double(w.window[2])); }, [](W& w, const py::handle& v) { w.window[2] = float(number(v, "window2")); }},
        {"window3", [](const W& w) { return py::cast(double(w.window[3])); }, [](W& w, const py::handle& v) { w.window[3] = float(number(v, "window3")); }},
        {"threat", [](const W& w) { return py::cast(double(w.window[4])); }, [](W& w, const py::handle& v) { w.window[4] = float(number(v, "threat")); }},
        {"sequence", [](const W& w) { return py::cast(double(w.sequence)); }, [](W& w, const py::handle& v) { w.sequence = float(number(v, "sequence")); }},
        {"scale", [](const W& w) { return py::cast(double(w.scale)); }, [](W& w, const py::handle& v) { w.scale = float(number(v, "scale")); }},
        {"two_eyed", [](const W& w) { return py::cast(double(w.two_eyed)); }, [](W& w, const py::handle& v) { w.two_eyed = float(number(v, "two_eyed")); }},
        {"one_eyed", [](const W& w) { return py::cast(double(w.one_eyed)); }, [](W& w, const py::handle& v) { w.one_eyed = float(number(v, "one_eyed")); }},
    };
    return fields;
}

// An EvalWeights from an EvalWeights or a sequence of 8 numbers in weight_fields() order.
EvalWeights weights_from(const py::handle& v) {
    if (py::isinstance<EvalWeights>(v)) return v.cast<EvalWeights>();
    if (!py::isinstance<py::sequence>(v) || py::isinstance<py::str>(v))
        throw py::type_error("weights must be an EvalWeights or 8 numbers, not " + type_name(v));
    const auto seq = py::reinterpret_borrow<py::sequence>(v);
    const auto& fields = weight_fields();
    if (seq.size() != fields.size())
        throw py::value_error("weights must be 8 numbers (window1, window2, window3, threat, sequence, scale, two_eyed, "
                              "one_eyed), not " + std::to_string(seq.size()));
    EvalWeights w;
    for (std::size_t i = 0; i < fields.size(); ++i) fields[i].set(w, seq[i]);
    check_weights(w);
    return w;
}

// The learned evaluation's weights, one named field per feature (features.hpp, EVAL_FEATURES order).
const std::vector<Field<LearnedWeights>>& learned_fields() {
    using W = LearnedWeights;
    static const std::vector<Field<W>> fields = [] {
        std::vector<Field<W>> out;
        for (int i = 0; i < kEvalFeatures; ++i) {
            const std::string name = eval_feature_name(i);
            out.push_back({eval_feature_name(i), [i](const W& w) { return py::cast(double(w.weight[i])); },
                           [i, name](W& w, const py::handle& v) { w.weight[i] = float(number(v, name)); }});
        }
        return out;
    }();
    return fields;
}

// A LearnedWeights from a LearnedWeights or a sequence of kEvalFeatures numbers (EVAL_FEATURES order).
LearnedWeights learned_from(const py::handle& v) {
    if (py::isinstance<LearnedWeights>(v)) return v.cast<LearnedWeights>();
    if (!py::isinstance<py::sequence>(v) || py::isinstance<py::str>(v))
        throw py::type_error("learned_weights must be a LearnedWeights or " + std::to_string(kEvalFeatures) +
                             " numbers (EVAL_FEATURES order), not " + type_name(v));
    const auto seq = py::reinterpret_borrow<py::sequence>(v);
    const auto& fields = learned_fields();
    if (seq.size() != fields.size())
        throw py::value_error("learned_weights must be " + std::to_string(kEvalFeatures) +
                              " numbers (EVAL_FEATURES order), not " + std::to_string(seq.size()));
    LearnedWeights w;
    for (std::size_t i = 0; i < fields.size(); ++i) fields[i].set(w, seq[i]);
    check_weights(w);
    return w;
}

Evaluation evaluation_kind(const py::handle& v) {
    if (py::isinstance<py::str>(v)) {
        const std::string s = v.cast<std::string>();
        if (s == "handset") return Evaluation::Handset;
        if (s == "learned") return Evaluation::Learned;
        throw py::value_error("evaluation must be 'handset' or 'learned', not '" + s.substr(0, 40) + "'");
    }
    throw py::type_error("evaluation must be 'handset' or 'learned', not " + type_name(v));
}

template <class T>
using Checker = void (*)(const T&);

// Binds the fields of T: a keyword constructor, a validating property per field, __repr__, __eq__.
template <class T>
void bind_fields(py::class_<T>& cls, const std::vector<Field<T>>& fields, Checker<T> check, const char* type) {
    const std::vector<Field<T>> all = fields;  // the bound functions keep their own copy
    cls.def(py::init([all, check, type](const py::kwargs& kwargs) {
                T o;
                for (const auto& kv : kwargs) {
                    const std::string key = py::str(kv.first);
                    const Field<T>* f = nullptr;
                    for (const Field<T>& candidate : all)
                        if (key == candidate.name) f = &candidate;
                    if (f == nullptr) throw py::type_error(std::string(type) + "() got an unexpected keyword argument '" + key + "'");
                    f->set(o, kv.second);
                }
                check(o);
                return o;
            }),
            "Every field is a keyword argument with the default shown by repr(); values are checked at once.");
    for (const Field<T>& field : fields) {
        const Field<T> f = field;
        cls.def_property(
            f.name, [f](const T& o) { return f.get(o); },
            [f, check](T& o, const py::handle& v) {
                T changed = o;
                f.set(changed, v);
                check(changed);
                o = changed;
            });
    }
    cls.def("__repr__", [all, type](const T& o) {
        std::string out = std::string(type) + "(";
        for (std::size_t i = 0; i < all.size(); ++i)
            out += (i ? ", " : "") + std::string(all[i].name) + "=" + std::string(py::str(py::repr(all[i].get(o))));
        return out + ")";
    });
    cls.def("__eq__", [all](const T& a, const py::object& b) -> py::object {
        if (!py::isinstance<T>(b)) return py::reinterpret_borrow<py::object>(Py_NotImplemented);
        const T& other = b.cast<const T&>();
        for (const Field<T>& f : all)
            if (!f.get(a).equal(f.get(other))) return py::bool_(false);
        return py::bool_(true);
    });
    cls.attr("__hash__") = py::none();
    cls.def("__copy__", [](const T& o) { return T(o); });
    cls.def("__deepcopy__", [](const T& o, const py::object&) { return T(o); });
    py::list names;
    for (const Field<T>& f : fields) names.append(f.name);
    cls.attr("fields") = py::tuple(names);
}

py::object optional_int(std::uint64_t x) { return x == 0 ? py::none() : py::cast(x); }
py::object optional_float(double x) { return x == 0 ? py::none() : py::cast(x); }

template <class T>
Field<T> budget_iterations() {
    return {"iterations", [](const T& o) { return optional_int(o.iterations); },
            [](T& o, const py::handle& v) { o.iterations = optional_count(v, "iterations"); }};
}
template <class T>
Field<T> budget_time_limit() {
    return {"time_limit", [](const T& o) { return optional_float(o.time_limit); },
            [](T& o, const py::handle& v) { o.time_limit = optional_seconds(v, "time_limit"); }};
}
template <class T>
Field<T> budget_threads() {
    return {"threads", [](const T& o) { return py::cast(o.threads); },
            [](T& o, const py::handle& v) { o.threads = static_cast<int>(int_in_range(v, "threads", 1, kMaxThreads)); }};
}
template <class T>
Field<T> seed_field() {
    return {"seed", [](const T& o) { return py::cast(o.seed); }, [](T& o, const py::handle& v) { o.seed = uint64_arg(v, "seed"); }};
}

}  // namespace

void init_search_options(py::module_& m) {
    py::enum_<PlayoutKind>(m, "PlayoutKind", "How a search playout chooses its moves (cpp/include/sequence/search/options.hpp).")
        .value("random", PlayoutKind::Random, "uniformly random legal moves (random_legal_move)")
        .value("informed", PlayoutKind::Informed, "complete, block, trade a dead card, else a cheap local pick")
        .value("greedy", PlayoutKind::Greedy, "the move heuristic's best move (about 5x slower)");

    py::enum_<InferenceKind>(m, "InferenceKind",
                             "Whether ISMCTS weights its sampled deals by the other players' recent turns "
                             "(cpp/include/sequence/search/inference.hpp).")
        .value("off", InferenceKind::Off, "every deal consistent with the observation is equally likely")
        .value("recent", InferenceKind::Recent, "deals that explain each other player's last inference_plays turns are preferred");

    py::class_<EvalWeights> weights(m, "EvalWeights",
                                    "The static evaluation's weights (cpp/include/sequence/search/evaluate.hpp): an open "
                                    "window holding 1, 2, 3 cells, each distinct threat, each sequence, the logistic "
                                    "scale, each two-eyed and one-eyed jack in hand.");
    bind_fields<EvalWeights>(weights, weight_fields(), static_cast<Checker<EvalWeights>>(&check_weights), "EvalWeights");

    py::class_<LearnedWeights> learned(m, "LearnedWeights",
                                       "The learned evaluation's weights (cpp/include/sequence/search/features.hpp): one "
                                       "per feature of EVAL_FEATURES, all 0 by default; a team's score is the weighted sum "
                                       "of its features and its reward the softmax of the scores. Load the fitted ones with "
                                       "sequence_game.agents.learned.load_eval_model().");
    bind_fields<LearnedWeights>(learned, learned_fields(), static_cast<Checker<LearnedWeights>>(&check_weights),
                                "LearnedWeights");

    using S = SearchOptions;
    py::class_<S> search(m, "SearchOptions",
                         "Options of the information-set MCTS (cpp/include/sequence/search/options.hpp). iterations and "
                         "time_limit: None for no budget of that kind (not both).");
    const std::vector<Field<S>> search_fields = {
        budget_iterations<S>(), budget_time_limit<S>(), budget_threads<S>(), seed_field<S>(),
        {"exploration", [](const S& o) { return py::cast(o.exploration); }, [](S& o, const py::handle& v) { o.exploration = number(v, "exploration"); }},
        {"max_nodes", [](const S& o) { return py::cast(o.max_nodes); },
         [](S& o, const py::handle& v) {
             o.max_nodes = static_cast<std::uint64_t>(int_in_range(v, "max_nodes", 1, static_cast<long long>(OptionLimits::kMaxNodes)));
         }},
        {"playout_turns", [](const S& o) { return py::cast(o.playout_turns); },
         [](S& o, const py::handle& v) { o.playout_turns = static_cast<std::uint32_t>(int_in_range(v, "playout_turns", 1, OptionLimits::kMaxTurns)); }},
        {"evaluate", [](const S& o) { return py::cast(o.evaluate); }, [](S& o, const py::handle& v) { o.evaluate = flag(v, "evaluate"); }},
        {"align_playouts", [](const S& o) { return py::cast(o.align_playouts); }, [](S& o, const py::handle& v) { o.align_playouts = flag(v, "align_playouts"); }},
        {"playout", [](const S& o) { return py::cast(playout_name(o.playout)); }, [](S& o, const py::handle& v) { o.playout = playout_kind(v); }},
        {"playout_candidates", [](const S& o) { return py::cast(o.policy.candidates); },
         [](S& o, const py::handle& v) { o.policy.candidates = static_cast<int>(int_in_range(v, "playout_candidates", 0, OptionLimits::kMaxPlayoutCandidates)); }},
        {"playout_epsilon", [](const S& o) { return py::cast(o.playout_epsilon); }, [](S& o, const py::handle& v) { o.playout_epsilon = number(v, "playout_epsilon"); }},
        {"playout_block_chance", [](const S& o) { return py::cast(o.policy.block_chance); },
         [](S& o, const py::handle& v) {
             o.policy.block_chance = static_cast<std::uint32_t>(int_in_range(v, "playout_block_chance", 0, OptionLimits::kMaxBlockChance));
         }},
        {"playout_block", [](const S& o) { return py::cast(float_value(o.policy.block)); },
         [](S& o, const py::handle& v) { o.policy.block = float(number(v, "playout_block")); }},
        {"playout_two_eyed_cost", [](const S& o) { return py::cast(float_value(o.policy.two_eyed_cost)); },
         [](S& o, const py::handle& v) { o.policy.two_eyed_cost = float(number(v, "playout_two_eyed_cost")); }},
        {"playout_one_eyed_cost", [](const S& o) { return py::cast(float_value(o.policy.one_eyed_cost)); },
         [](S& o, const py::handle& v) { o.policy.one_eyed_cost = float(number(v, "playout_one_eyed_cost")); }},
        {"decisive", [](const S& o) { return py::cast(o.decisive); }, [](S& o, const py::handle& v) { o.decisive = flag(v, "decisive"); }},
        {"weights", [](const S& o) { return py::cast(o.weights); }, [](S& o, const py::handle& v) { o.weights = v.is_none() ? EvalWeights{} : weights_from(v); }},
        {"evaluation", [](const S& o) { return py::cast(o.evaluation == Evaluation::Learned ? "learned" : "handset"); },
         [](S& o, const py::handle& v) { o.evaluation = evaluation_kind(v); }},
        {"learned_weights", [](const S& o) { return py::cast(o.learned); },
         [](S& o, const py::handle& v) { o.learned = v.is_none() ? LearnedWeights{} : learned_from(v); }},
        {"expansion_candidates", [](const S& o) { return py::cast(o.expansion_candidates); },
         [](S& o, const py::handle& v) {
             o.expansion_candidates = static_cast<int>(int_in_range(v, "expansion_candidates", 0, OptionLimits::kMaxCandidates));
         }},
        {"ordered_expansion", [](const S& o) { return py::cast(o.ordered_expansion); }, [](S& o, const py::handle& v) { o.ordered_expansion = flag(v, "ordered_expansion"); }},
        {"prior_weight", [](const S& o) { return py::cast(o.prior_weight); }, [](S& o, const py::handle& v) { o.prior_weight = number(v, "prior_weight"); }},
        {"widen_base", [](const S& o) { return py::cast(o.widen_base); }, [](S& o, const py::handle& v) { o.widen_base = number(v, "widen_base"); }},
        {"widen_coef", [](const S& o) { return py::cast(o.widen_coef); }, [](S& o, const py::handle& v) { o.widen_coef = number(v, "widen_coef"); }},
        {"widen_exponent", [](const S& o) { return py::cast(o.widen_exponent); }, [](S& o, const py::handle& v) { o.widen_exponent = number(v, "widen_exponent"); }},
        {"inference", [](const S& o) { return py::cast(o.inference == InferenceKind::Off ? "off" : "recent"); },
         [](S& o, const py::handle& v) { o.inference = inference_kind(v); }},
        {"inference_plays", [](const S& o) { return py::cast(o.inference_plays); },
         [](S& o, const py::handle& v) { o.inference_plays = static_cast<int>(int_in_range(v, "inference_plays", 1, OptionLimits::kMaxInferencePlays)); }},
        {"inference_strength", [](const S& o) { return py::cast(o.inference_strength); },
         [](S& o, const py::handle& v) { o.inference_strength = number(v, "inference_strength"); }},
        {"inference_margin", [](const S& o) { return py::cast(o.inference_margin); },
         [](S& o, const py::handle& v) { o.inference_margin = number(v, "inference_margin"); }},
        {"inference_tries", [](const S& o) { return py::cast(o.inference_tries); },
         [](S& o, const py::handle& v) { o.inference_tries = static_cast<int>(int_in_range(v, "inference_tries", 1, OptionLimits::kMaxInferenceTries)); }},
        {"cheat", [](const S& o) { return py::cast(o.cheat); }, [](S& o, const py::handle& v) { o.cheat = flag(v, "cheat"); }},
        {"cheat_hands", [](const S& o) { return py::cast(o.cheat_hands); },
         [](S& o, const py::handle& v) { o.cheat_hands = flag(v, "cheat_hands"); }},
    };
    bind_fields<S>(search, search_fields, static_cast<Checker<S>>(&check_options), "SearchOptions");

    using R = RolloutOptions;
    py::class_<R> rollout(m, "RolloutOptions",
                          "Options of the rollout search (cpp/include/sequence/search/options.hpp). iterations and "
                          "time_limit: None for no budget of that kind (not both).");
    const std::vector<Field<R>> rollout_fields = {
        budget_iterations<R>(), budget_time_limit<R>(), budget_threads<R>(), seed_field<R>(),
        {"candidates", [](const R& o) { return py::cast(o.candidates); },
         [](R& o, const py::handle& v) { o.candidates = static_cast<int>(int_in_range(v, "candidates", 1, OptionLimits::kMaxCandidates)); }},
        {"horizon", [](const R& o) { return py::cast(o.horizon); },
         [](R& o, const py::handle& v) { o.horizon = static_cast<std::uint32_t>(int_in_range(v, "horizon", 1, OptionLimits::kMaxTurns)); }},
        {"epsilon", [](const R& o) { return py::cast(o.epsilon); }, [](R& o, const py::handle& v) { o.epsilon = number(v, "epsilon"); }},
        {"reveal", [](const R& o) { return py::cast(o.reveal); }, [](R& o, const py::handle& v) { o.reveal = static_cast<int>(int_in_range(v, "reveal", 0, 2)); }},
        {"inference_strength", [](const R& o) { return py::cast(o.inference_strength); },
         [](R& o, const py::handle& v) { o.inference_strength = number(v, "inference_strength"); }},
        {"weights", [](const R& o) { return py::cast(o.weights); }, [](R& o, const py::handle& v) { o.weights = v.is_none() ? EvalWeights{} : weights_from(v); }},
    };
    bind_fields<R>(rollout, rollout_fields, static_cast<Checker<R>>(&check_options), "RolloutOptions");
}

}  // namespace SEQUENCE_ISA
}  // namespace sequence_bindings
