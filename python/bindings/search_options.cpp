// The search options as Python values: _core.SearchOptions (ISMCTS), _core.RolloutOptions (rollout
// search), _core.NetSearchOptions (the network-guided search), _core.EvalWeights (the static
// evaluation) and _core.LearnedWeights. Every field is a named keyword with the C++ default; a
// value is converted here (TypeError for a wrong type, a huge int becoming an out-of-range number
// rather than an OverflowError) and the whole struct is then checked by check_options()
// (cpp/src/search/options.cpp, puct.cpp: ValueError with the bounds), at construction and on every
// assignment, so a bad value never reaches a search. Each struct is bound from a table, one line a
// field: its name, the member it reaches and its kind (real, integer in a range, flag, choice among
// names, nested weights); the caller's limits (SearchLimits) are one group shared by every search.
// A research option (SEQUENCE_RESEARCH, options.hpp) is a field of a research build only; the
// product build refuses it by name, saying where it is described (research_option()).
#include "search_options.hpp"

#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "sequence/search/puct.hpp"

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

// One named field of an options struct: how Python reads and writes it.
template <class T>
struct Field {
    const char* name;
    std::function<py::object(const T&)> get;
    std::function<void(T&, const py::handle&)> set;
};

// The member a field reaches, as a function of the struct: at(&T::member), or a generic lambda
// [](auto& o) -> auto& { return o.policy.block; } for a nested member or an array element.
template <class T, class M>
auto at(M T::*member) {
    return [member](auto& o) -> auto& { return o.*member; };
}

template <class T, class Ref>
using MemberOf = std::remove_reference_t<decltype(std::declval<Ref>()(std::declval<T&>()))>;

// How a float member reads back: as the double it is (Exact) or as the shortest decimal that reads
// back as the same float (Shortest, float_value()).
enum class Read { Exact, Shortest };

// A real number (a double or float member).
template <class T, class Ref>
Field<T> real(const char* name, Ref ref, Read read = Read::Exact) {
    using M = MemberOf<T, Ref>;
    return {name,
            [ref, read](const T& o) {
                const double x = static_cast<double>(ref(o));
                return py::cast(read == Read::Shortest ? float_value(static_cast<float>(x)) : x);
            },
            [ref, name](T& o, const py::handle& v) { ref(o) = static_cast<M>(number(v, name)); }};
}

// An int in [lo, hi] (int_in_range(): TypeError for a non-int, ValueError with the bounds).
template <class T, class Ref>
Field<T> integer(const char* name, Ref ref, long long lo, long long hi) {
    using M = MemberOf<T, Ref>;
    return {name, [ref](const T& o) { return py::cast(ref(o)); },
            [ref, name, lo, hi](T& o, const py::handle& v) { ref(o) = static_cast<M>(int_in_range(v, name, lo, hi)); }};
}

template <class T, class Ref>
Field<T> boolean(const char* name, Ref ref) {
    return {name, [ref](const T& o) { return py::cast(static_cast<bool>(ref(o))); },
            [ref, name](T& o, const py::handle& v) { ref(o) = flag(v, name); }};
}

// One value of an enum option and its name in Python.
template <class E>
struct Choice {
    const char* name;
    E value;
};

// "'a', 'b' or 'c'"
template <class E>
std::string choice_names(const std::vector<Choice<E>>& choices) {
    std::string out;
    for (std::size_t i = 0; i < choices.size(); ++i)
        out += (i == 0 ? "" : i + 1 == choices.size() ? " or " : ", ") + std::string("'") + choices[i].name + "'";
    return out;
}

// An enum option, read as its name; written as a name or, when the enum is bound (enum_type, e.g.
// "PlayoutKind"), as a member of the bound enum.
template <class T, class Ref, class E = MemberOf<T, Ref>>
Field<T> choice(const char* name, Ref ref, std::vector<Choice<E>> choices, const char* enum_type = nullptr) {
    return {name,
            [ref, choices](const T& o) {
                for (const Choice<E>& c : choices)
                    if (c.value == ref(o)) return py::cast(c.name);
                return py::cast(choices.front().name);  // unreachable: check_options() refuses others
            },
            [ref, name, choices, enum_type](T& o, const py::handle& v) {
                if (enum_type != nullptr && py::isinstance<E>(v)) {
                    ref(o) = v.cast<E>();
                    return;
                }
                if (py::isinstance<py::str>(v)) {
                    const std::string s = v.cast<std::string>();
                    for (const Choice<E>& c : choices)
                        if (s == c.name) {
                            ref(o) = c.value;
                            return;
                        }
                    throw py::value_error(std::string(name) + " must be " + choice_names(choices) + ", not '" +
                                          s.substr(0, 40) + "'");
                }
                throw py::type_error(std::string(name) + " must be " +
                                     (enum_type != nullptr ? std::string("a ") + enum_type + " or " : std::string()) +
                                     choice_names(choices) + ", not " + type_name(v));
            }};
}

// A nested weights struct: read as itself, written from what `from` converts (None: the defaults).
template <class T, class Ref, class M = MemberOf<T, Ref>>
Field<T> weights(const char* name, Ref ref, M (*from)(const py::handle&)) {
    return {name, [ref](const T& o) { return py::cast(ref(o)); },
            [ref, from](T& o, const py::handle& v) { ref(o) = v.is_none() ? M{} : from(v); }};
}

py::object optional_int(std::uint64_t x) { return x == 0 ? py::none() : py::cast(x); }
py::object optional_float(double x) { return x == 0 ? py::none() : py::cast(x); }

// The caller's limits (SearchLimits), the first fields of both searches' options.
template <class T>
std::vector<Field<T>> limit_fields() {
    return {
        {"iterations", [](const T& o) { return optional_int(o.iterations); },
         [](T& o, const py::handle& v) { o.iterations = optional_count(v, "iterations"); }},
        {"time_limit", [](const T& o) { return optional_float(o.time_limit); },
         [](T& o, const py::handle& v) { o.time_limit = optional_seconds(v, "time_limit"); }},
        integer<T>("threads", at(&T::threads), 1, kMaxThreads),
        {"seed", [](const T& o) { return py::cast(o.seed); }, [](T& o, const py::handle& v) { o.seed = uint64_arg(v, "seed"); }},
    };
}

template <class T>
std::vector<Field<T>> operator+(std::vector<Field<T>> a, const std::vector<Field<T>>& b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
}

const std::vector<Field<EvalWeights>>& weight_fields() {
    using W = EvalWeights;
    static const std::vector<Field<W>> fields = {
        real<W>("window1", [](auto& w) -> auto& { return w.window[1]; }),
        real<W>("window2", [](auto& w) -> auto& { return w.window[2]; }),
        real<W>("window3", [](auto& w) -> auto& { return w.window[3]; }),
        real<W>("threat", [](auto& w) -> auto& { return w.window[4]; }),
        real<W>("sequence", at(&W::sequence)),
        real<W>("scale", at(&W::scale)),
        real<W>("two_eyed", at(&W::two_eyed)),
        real<W>("one_eyed", at(&W::one_eyed)),
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
        for (int i = 0; i < kEvalFeatures; ++i)
            out.push_back(real<W>(eval_feature_name(i), [i](auto& w) -> auto& { return w.weight[i]; }));
        return out;
    }();
    return fields;
}

#if SEQUENCE_RESEARCH
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
#endif

// Options a SearchOptions of this build does not have, each with where it is described: the research
// build's (SEQUENCE_RESEARCH) in a product build, and the options removed after they measured no
// gain (their notes reproduce them at the commit named there).
struct Absent {
    const char* name;
    const char* note;
    bool research;  // true: a research build has it; false: removed
};
constexpr const char* kRemovedAt = "commit 0d8a3f488711f547bdb1707c3af059cfa88c2f25";

const std::vector<Absent>& absent_options() {
    // Built on first use, never at load: every instruction-set path's copy of this file is in the
    // module, and a namespace-scope initializer of the AVX-512 copy would run on any processor.
    static const std::vector<Absent> v = {
#if !SEQUENCE_RESEARCH
        {"evaluation", "docs/research/learned-evaluation.md", true},
        {"learned_weights", "docs/research/learned-evaluation.md", true},
        {"expansion_candidates", "docs/research/learned-evaluation.md", true},
        {"inference", "docs/research/inference.md", true},
        {"inference_plays", "docs/research/inference.md", true},
        {"inference_strength", "docs/research/inference.md", true},
        {"inference_margin", "docs/research/inference.md", true},
        {"inference_tries", "docs/research/inference.md", true},
#endif
        {"playout", "docs/research/tuning.md", false},
        {"playout_epsilon", "docs/research/tuning.md", false},
        {"evaluate", "docs/research/tuning.md", false},
        {"align_playouts", "docs/research/tuning.md", false},
        {"ordered_expansion", "docs/research/tuning.md", false},
        {"prior_weight", "docs/research/tuning.md", false},
        {"widen_base", "docs/research/tuning.md", false},
        {"widen_coef", "docs/research/tuning.md", false},
        {"widen_exponent", "docs/research/tuning.md", false},
    };
    return v;
}

// Why a product build's options have no field `key`, a research build's option described in `note`.
std::string research_option(const std::string& key, const char* note) {
    return "option " + key + " is a research option: build with -DSEQUENCE_RESEARCH=ON (" + note + ")";
}

// Why SearchOptions has no field `key`, or an empty string when no option was ever so named.
std::string absent_reason(const std::string& key) {
    for (const Absent& a : absent_options()) {
        if (key != a.name) continue;
        if (a.research) return research_option(key, a.note);
        return "option " + key + " was removed: it measured no gain (" + a.note + "; reproduce at " + kRemovedAt + ")";
    }
    return "";
}

#if SEQUENCE_RESEARCH
// Built on first use, never at load: every instruction-set path's copy of this file is in the
// module, and a namespace-scope initializer of the AVX-512 copy would run on any processor.
const std::vector<Choice<InferenceKind>>& inferences() {
    static const std::vector<Choice<InferenceKind>> v = {{"off", InferenceKind::Off}, {"recent", InferenceKind::Recent}};
    return v;
}
const std::vector<Choice<Evaluation>>& evaluations() {
    static const std::vector<Choice<Evaluation>> v = {{"handset", Evaluation::Handset}, {"learned", Evaluation::Learned}};
    return v;
}
#endif

std::vector<Field<SearchOptions>> search_fields() {
    using S = SearchOptions;
    using L = OptionLimits;
    return limit_fields<S>() + std::vector<Field<S>>{
        real<S>("exploration", at(&S::exploration)),
        integer<S>("max_nodes", at(&S::max_nodes), 1, static_cast<long long>(L::kMaxNodes)),
        integer<S>("playout_turns", at(&S::playout_turns), 1, L::kMaxTurns),
        integer<S>("playout_candidates", [](auto& o) -> auto& { return o.policy.candidates; }, 0, L::kMaxPlayoutCandidates),
        integer<S>("playout_block_chance", [](auto& o) -> auto& { return o.policy.block_chance; }, 0, L::kMaxBlockChance),
        real<S>("playout_block", [](auto& o) -> auto& { return o.policy.block; }, Read::Shortest),
        real<S>("playout_two_eyed_cost", [](auto& o) -> auto& { return o.policy.two_eyed_cost; }, Read::Shortest),
        real<S>("playout_one_eyed_cost", [](auto& o) -> auto& { return o.policy.one_eyed_cost; }, Read::Shortest),
        boolean<S>("decisive", at(&S::decisive)),
        weights<S>("weights", at(&S::weights), &weights_from),
#if SEQUENCE_RESEARCH
        choice<S>("evaluation", at(&S::evaluation), evaluations()),
        weights<S>("learned_weights", at(&S::learned), &learned_from),
        integer<S>("expansion_candidates", at(&S::expansion_candidates), 0, L::kMaxCandidates),
        choice<S>("inference", at(&S::inference), inferences(), "InferenceKind"),
        integer<S>("inference_plays", at(&S::inference_plays), 1, L::kMaxInferencePlays),
        real<S>("inference_strength", at(&S::inference_strength)),
        real<S>("inference_margin", at(&S::inference_margin)),
        integer<S>("inference_tries", at(&S::inference_tries), 1, L::kMaxInferenceTries),
#endif
    };
}

std::vector<Field<RolloutOptions>> rollout_fields() {
    using R = RolloutOptions;
    using L = OptionLimits;
    return limit_fields<R>() + std::vector<Field<R>>{
        integer<R>("candidates", at(&R::candidates), 1, L::kMaxCandidates),
        integer<R>("horizon", at(&R::horizon), 1, L::kMaxTurns),
        real<R>("epsilon", at(&R::epsilon)),
#if SEQUENCE_RESEARCH
        boolean<R>("halving", at(&R::halving)),
        real<R>("inference_strength", at(&R::inference_strength)),
        integer<R>("inference_tries", at(&R::inference_tries), 1, L::kMaxInferenceTries),
        boolean<R>("keep_two_eyed", at(&R::keep_two_eyed)),
#endif
        weights<R>("weights", at(&R::weights), &weights_from),
    };
}

// Why RolloutOptions has no field `key` (a research option in a product build), or "".
std::string rollout_absent_reason(const std::string& key) {
#if !SEQUENCE_RESEARCH
    if (key == "inference_strength" || key == "inference_tries") return research_option(key, "docs/research/inference.md");
    if (key == "keep_two_eyed" || key == "halving") return research_option(key, "docs/research/ceilings.md");
#endif
    (void)key;
    return "";
}

std::vector<Field<NetSearchOptions>> net_search_fields() {
    using N = NetSearchOptions;
    return limit_fields<N>() + std::vector<Field<N>>{
        real<N>("c_puct", at(&N::c_puct)),
        integer<N>("max_nodes", at(&N::max_nodes), 1024, 1LL << 28),
        boolean<N>("decisive", at(&N::decisive)),
        real<N>("mix", at(&N::mix)),
        integer<N>("playout_turns", at(&N::playout_turns), 0, 1000),
    };
}

template <class T>
using Checker = void (*)(const T&);

// Binds the fields of T: a keyword constructor, a validating property per field, __repr__, __eq__.
// `absent` says why a keyword that is not a field is refused (empty: no such option ever existed).
template <class T>
void bind_fields(py::class_<T>& cls, const std::vector<Field<T>>& fields, Checker<T> check, const char* type,
                 std::string (*absent)(const std::string&) = nullptr) {
    const std::vector<Field<T>> all = fields;  // the bound functions keep their own copy
    cls.def(py::init([all, check, type, absent](const py::kwargs& kwargs) {
                T o;
                for (const auto& kv : kwargs) {
                    const std::string key = py::str(kv.first);
                    const Field<T>* f = nullptr;
                    for (const Field<T>& candidate : all)
                        if (key == candidate.name) f = &candidate;
                    if (f == nullptr) {
                        const std::string why = absent != nullptr ? absent(key) : std::string();
                        if (!why.empty()) throw py::type_error(std::string(type) + "(): " + why);
                        throw py::type_error(std::string(type) + "() got an unexpected keyword argument '" + key + "'");
                    }
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

}  // namespace

void init_search_options(py::module_& m) {
#if SEQUENCE_RESEARCH
    py::enum_<InferenceKind>(m, "InferenceKind",
                             "Whether ISMCTS weights its sampled deals by the other players' recent turns "
                             "(cpp/include/sequence/search/inference.hpp).")
        .value("off", InferenceKind::Off, "every deal consistent with the observation is equally likely")
        .value("recent", InferenceKind::Recent, "deals that explain each other player's last inference_plays turns are preferred");
#endif

    py::class_<EvalWeights> weights(m, "EvalWeights",
                                    "The static evaluation's weights (cpp/include/sequence/search/evaluate.hpp): an open "
                                    "window holding 1, 2, 3 cells, each distinct threat, each sequence, the logistic "
                                    "scale, each two-eyed and one-eyed jack in hand.");
    bind_fields<EvalWeights>(weights, weight_fields(), static_cast<Checker<EvalWeights>>(&check_weights), "EvalWeights");

    py::class_<LearnedWeights> learned(m, "LearnedWeights",
                                       "The learned evaluation's weights (cpp/include/sequence/search/features.hpp): one "
                                       "per feature of EVAL_FEATURES, all 0 by default; a team's score is the weighted sum "
                                       "of its features and its reward the softmax of the scores. Load the fitted ones with "
                                       "sequence_game.research.learned_eval.load_eval_model() (a research build's).");
    bind_fields<LearnedWeights>(learned, learned_fields(), static_cast<Checker<LearnedWeights>>(&check_weights),
                                "LearnedWeights");

    using S = SearchOptions;
    py::class_<S> search(m, "SearchOptions",
                         "Options of the information-set MCTS (cpp/include/sequence/search/options.hpp). iterations and "
                         "time_limit: None for no budget of that kind (not both).");
    bind_fields<S>(search, search_fields(), static_cast<Checker<S>>(&check_options), "SearchOptions", &absent_reason);

    using R = RolloutOptions;
    py::class_<R> rollout(m, "RolloutOptions",
                          "Options of the rollout search (cpp/include/sequence/search/options.hpp). iterations and "
                          "time_limit: None for no budget of that kind (not both).");
    bind_fields<R>(rollout, rollout_fields(), static_cast<Checker<R>>(&check_options), "RolloutOptions",
                   &rollout_absent_reason);

    using N = NetSearchOptions;
    py::class_<N> net(m, "NetSearchOptions",
                      "Options of the network-guided search (cpp/include/sequence/search/puct.hpp): the limits of "
                      "the other searches' options (one thread) and its own settings. iterations and time_limit: None "
                      "for no budget of that kind (not both).");
    bind_fields<N>(net, net_search_fields(), static_cast<Checker<N>>(&check_options), "NetSearchOptions");
}

}  // namespace SEQUENCE_ISA
}  // namespace sequence_bindings
