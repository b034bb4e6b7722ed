// _core.VectorGame: many games stepped together (cpp/include/sequence/vector_game.hpp), for
// python/sequence_game/vector.py. Every method writes into numpy arrays the caller passes (checked:
// dtype, shape, C-contiguous, writable; TypeError/ValueError otherwise, nothing written) with the
// GIL released. What the core reads with the GIL released (observer seats, actions) is copied
// first; outputs are only written, so one that overlaps another gives wrong numbers, never a crash. One VectorGame is used by one thread at a time: a call while another thread is
// inside one raises RuntimeError and changes nothing.
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <climits>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "bindings.hpp"
#include "sequence/game.hpp"
#include "sequence/net.hpp"
#include "sequence/vector_game.hpp"

namespace sequence_bindings {
inline namespace SEQUENCE_ISA {

namespace {

using namespace sequence;

// A VectorGame and the lock that keeps two Python threads out of it at once.
struct VectorGameHandle {
    std::unique_ptr<VectorGame> game;
    std::mutex busy;
};

class Busy {
public:
    explicit Busy(VectorGameHandle& h) : lock_(h.busy, std::try_to_lock) {
        if (!lock_.owns_lock()) throw std::runtime_error("VectorGame is being changed by another thread");
    }

private:
    std::unique_lock<std::mutex> lock_;
};

std::string shape_text(py::ssize_t rows, py::ssize_t cols) {
    return cols < 0 ? "(" + std::to_string(rows) + ",)" : "(" + std::to_string(rows) + ", " + std::to_string(cols) + ")";
}

// A C-contiguous numpy array of exactly this dtype and shape (cols < 0: one dimension), writable
// when the call writes into it. The checks run on every call of a batch loop, so the message is built
// only when one fails.
py::array checked_array(const py::object& obj, const py::dtype& want, py::ssize_t rows, py::ssize_t cols,
                        const char* name, bool writable) {
    const auto what = [&] {
        return std::string(name) + (writable ? " must be a writable, C-contiguous numpy " : " must be a C-contiguous numpy ") +
               std::string(py::str(want)) + " array of shape " + shape_text(rows, cols);
    };
    if (!py::isinstance<py::array>(obj)) throw py::type_error(what() + ", not " + std::string(py::str(py::type::of(obj))));
    auto arr = py::reinterpret_borrow<py::array>(obj);
    if (!arr.dtype().is(want) && !arr.dtype().equal(want))
        throw py::type_error(what() + ", not dtype " + std::string(py::str(arr.dtype())));
    const bool shape_ok = cols < 0 ? arr.ndim() == 1 && arr.shape(0) == rows
                                   : arr.ndim() == 2 && arr.shape(0) == rows && arr.shape(1) == cols;
    const bool read_only = writable && !arr.writeable();
    if (!shape_ok || !(arr.flags() & py::array::c_style) || read_only)
        throw py::value_error(what() + " (got shape " + std::string(py::str(arr.attr("shape"))) +
                              (read_only ? ", read-only" : "") + ")");
    return arr;
}

// The array the call writes its results into.
template <class T>
T* out_array(const py::object& obj, py::ssize_t rows, py::ssize_t cols, const char* name) {
    return static_cast<T*>(checked_array(obj, py::dtype::of<T>(), rows, cols, name, true).mutable_data());
}

// An array the call only reads (it may be read-only).
template <class T>
const T* in_array(const py::object& obj, py::ssize_t rows, py::ssize_t cols, const char* name) {
    return static_cast<const T*>(checked_array(obj, py::dtype::of<T>(), rows, cols, name, false).data());
}

// Observer seats: None (each game's default) or an int32 array of shape (games,) of valid seats,
// copied into `seats` first and checked there: the core reads them with the GIL released, when the
// caller's array may be changed by another thread (numpy releases the GIL in its own loops too) or
// may share memory with `out`, which the call overwrites; a seat checked in the caller's array could
// then be out of range when it is read.
const std::int32_t* observer_array(const VectorGame& vg, const py::object& obj, std::vector<std::int32_t>& seats) {
    if (obj.is_none()) return nullptr;
    const std::int32_t* p = out_array<std::int32_t>(obj, vg.size(), -1, "players");
    seats.assign(p, p + vg.size());
    for (int i = 0; i < vg.size(); ++i)
        if (seats[i] < 0 || seats[i] >= vg.config().players)
            throw py::value_error("players[" + std::to_string(i) + "] = " + std::to_string(seats[i]) + " is not a seat 0.." +
                                  std::to_string(vg.config().players - 1));
    return seats.data();
}

int game_index(const VectorGame& vg, const py::handle& i) {
    return static_cast<int>(int_in_range(i, "game index", 0, vg.size() - 1));
}

py::object pending_of(const PendingPlacement& p) {
    return p.active() ? py::object(py::int_(p.move)) : py::object(py::none());
}

}  // namespace

void init_vector(py::module_& m) {
    m.attr("PACKED_MASK_BYTES") = kPackedMaskBytes;
    m.attr("MAX_LEGAL_ACTIONS") = kMaxLegalActions;
    m.def("episode_seed", [](const py::handle& seed, const py::handle& game, const py::handle& episode) {
        return episode_seed(uint64_arg(seed, "seed"), int_in_range(game, "game", 0, LLONG_MAX),
                            int_in_range(episode, "episode", 0, LLONG_MAX));
    }, py::arg("seed"), py::arg("game"), py::arg("episode"),
       "The deal seed of game `game`'s episode `episode` in a VectorGame seeded with `seed`.");

    py::class_<VectorGameHandle>(m, "VectorGame", R"doc(
Many games stepped together in the core (cpp/include/sequence/vector_game.hpp). Arguments are
checked by sequence_game.VectorGame; every method writes into arrays the caller passes.
)doc")
        .def(py::init([](const py::handle& games, const py::handle& players, const py::handle& teams,
                         const py::handle& seed, const py::handle& max_turns, const py::handle& threads,
                         const std::vector<int>& seats, const py::object& net, double temperature) {
            const int n = static_cast<int>(int_in_range(games, "num_games", 1, 1 << 24));
            const int p = static_cast<int>(int_in_range(players, "players", 0, 64));
            const int t = static_cast<int>(int_in_range(teams, "teams", 0, 64));
            Config cfg;
            if (!make_config(p, t, cfg))
                throw py::value_error(std::to_string(p) + " players cannot play as " + std::to_string(t) + " teams (R2)");
            const std::uint32_t cap = static_cast<std::uint32_t>(int_in_range(max_turns, "max_turns", 0, INT_MAX));
            const int th = static_cast<int>(int_in_range(threads, "threads", 1, 256));
            if (seats.size() != static_cast<std::size_t>(p)) throw py::value_error("one seat policy per player");
            std::array<SeatPolicy, kMaxPlayers> policy{};
            bool caller = false, builtin = false;
            for (int i = 0; i < p; ++i) {
                if (seats[i] < 0 || seats[i] > static_cast<int>(SeatPolicy::Net)) throw py::value_error("bad seat policy");
                policy[i] = static_cast<SeatPolicy>(seats[i]);
                caller |= policy[i] == SeatPolicy::Caller;
                builtin |= policy[i] != SeatPolicy::Caller;
            }
            if (!caller) throw py::value_error("at least one seat must be played by the caller");
            NetSeats net_seats;
            if (!net.is_none()) {
                if (!py::isinstance<Net>(net)) throw py::type_error("net must be a _core.Net or None");
                net_seats.net = net.cast<std::shared_ptr<Net>>();
            }
            if (!(temperature >= 0.0 && temperature <= 100.0))  // NaN fails too
                throw py::value_error("temperature must be a number in 0..100, not " + std::to_string(temperature));
            net_seats.temperature = temperature;
            for (int i = 0; i < p; ++i)
                if (policy[i] == SeatPolicy::Net && !net_seats.net)
                    throw py::value_error("a network seat needs net (a _core.Net)");
            // A fresh deal must reach a caller's seat before the cap (vector_game.cpp advance_builtin).
            if (builtin && cap != 0 && cap < static_cast<std::uint32_t>(p))
                throw py::value_error("max_turns must be at least the number of players when seats are built in");
            const std::uint64_t s = uint64_arg(seed, "seed");
            auto h = std::make_unique<VectorGameHandle>();
            py::gil_scoped_release release;
            h->game = std::make_unique<VectorGame>(n, cfg, s, cap, th, policy, std::move(net_seats));
            return h;
        }), py::arg("num_games"), py::arg("players"), py::arg("teams"), py::arg("seed"), py::arg("max_turns"),
            py::arg("threads"), py::arg("seats"), py::arg("net") = py::none(), py::arg("temperature") = 0.0)
        .def("save", [](VectorGameHandle& h) {
            Busy busy(h);
            py::gil_scoped_release release;
            h.game->save();
        }, "Copies every game aside (restore() brings the copy back).")
        .def("restore", [](VectorGameHandle& h) {
            Busy busy(h);
            h.game->restore();
        }, "Brings back the games as the last save() copied them.")
        .def_property_readonly("size", [](VectorGameHandle& h) { return h.game->size(); })
        .def_property_readonly("seed", [](VectorGameHandle& h) { return h.game->seed(); })
        .def("reset", [](VectorGameHandle& h, const py::handle& seed) {
            const std::uint64_t s = uint64_arg(seed, "seed");
            Busy busy(h);
            py::gil_scoped_release release;
            h.game->reset(s);
        }, py::arg("seed"))
        .def("current_players", [](VectorGameHandle& h, const py::object& out) {
            Busy busy(h);
            std::int32_t* p = out_array<std::int32_t>(out, h.game->size(), -1, "out");
            h.game->current_players(p);
        }, py::arg("out"))
        .def("episodes", [](VectorGameHandle& h, const py::object& out) {
            Busy busy(h);
            std::int64_t* p = out_array<std::int64_t>(out, h.game->size(), -1, "out");
            for (int i = 0; i < h.game->size(); ++i) p[i] = h.game->episode(i);
        }, py::arg("out"))
        .def("seeds", [](VectorGameHandle& h, const py::object& out) {
            Busy busy(h);
            std::uint64_t* p = out_array<std::uint64_t>(out, h.game->size(), -1, "out");
            for (int i = 0; i < h.game->size(); ++i) p[i] = h.game->current_seed(i);
        }, py::arg("out"))
        .def("observations", [](VectorGameHandle& h, const py::object& out, const py::object& players) {
            Busy busy(h);
            const VectorGame& vg = *h.game;
            float* o = out_array<float>(out, vg.size(), kObservationSize, "out");
            std::vector<std::int32_t> seats;
            const std::int32_t* obs = observer_array(vg, players, seats);
            py::gil_scoped_release release;
            vg.observations(o, obs);
        }, py::arg("out"), py::arg("players"))
        .def("ended_count", [](VectorGameHandle& h) {
            Busy busy(h);
            int n = 0;
            for (int i = 0; i < h.game->size(); ++i) n += h.game->ended(i);
            return n;
        })
        .def("final_observations", [](VectorGameHandle& h, const py::object& out, const py::object& players) {
            Busy busy(h);
            const VectorGame& vg = *h.game;
            int rows = 0;
            for (int i = 0; i < vg.size(); ++i) rows += vg.ended(i);
            float* o = out_array<float>(out, rows, kObservationSize, "out");
            std::vector<std::int32_t> seats;
            const std::int32_t* obs = observer_array(vg, players, seats);
            py::gil_scoped_release release;
            return vg.final_observations(o, obs);
        }, py::arg("out"), py::arg("players"))
        .def("legal", [](VectorGameHandle& h, const py::object& mask, const py::object& packed, const py::object& actions,
                         const py::object& counts) {
            Busy busy(h);
            const VectorGame& vg = *h.game;
            const int n = vg.size();
            VectorGame::LegalOutput out;
            static_assert(sizeof(bool) == 1, "numpy bools are bytes");
            if (!mask.is_none()) out.mask = reinterpret_cast<std::uint8_t*>(out_array<bool>(mask, n, kActionCount, "out"));
            if (!packed.is_none()) out.packed = out_array<std::uint8_t>(packed, n, kPackedMaskBytes, "out");
            if (!actions.is_none()) {
                out.actions = out_array<std::int16_t>(actions, n, kMaxLegalActions, "actions");
                out.counts = out_array<std::int32_t>(counts, n, -1, "counts");
            }
            py::gil_scoped_release release;
            vg.legal(out);
        }, py::arg("mask"), py::arg("packed"), py::arg("actions"), py::arg("counts"))
        .def("sample", [](VectorGameHandle& h, const py::object& masks, bool packed, const py::object& uniforms,
                          const py::object& out) {
            Busy busy(h);
            const VectorGame& vg = *h.game;
            const int n = vg.size();
            static_assert(sizeof(bool) == 1, "numpy bools are bytes");
            const std::uint8_t* m = packed ? in_array<std::uint8_t>(masks, n, kPackedMaskBytes, "masks")
                                           : reinterpret_cast<const std::uint8_t*>(in_array<bool>(masks, n, kActionCount, "masks"));
            const double* u = in_array<double>(uniforms, n, -1, "uniforms");
            std::int64_t* o = out_array<std::int64_t>(out, n, -1, "out");
            py::gil_scoped_release release;
            return vg.sample_masks(m, packed, u, o);
        }, py::arg("masks"), py::arg("packed"), py::arg("uniforms"), py::arg("out"),
           "Writes into out one action per game drawn from the masks' rows (uniforms[i] in [0, 1) picks "
           "row i's floor(u * count)-th set entry, ascending; -1 for an empty row); returns the number "
           "of empty rows.")
        .def("step", [](VectorGameHandle& h, const py::object& actions, const py::object& rewards,
                        const py::object& terminated, const py::object& truncated, const py::object& active,
                        bool keep_ended) -> py::object {
            Busy busy(h);
            VectorGame& vg = *h.game;
            const int n = vg.size();
            // Copied before the GIL is released, as the observer seats are: the caller's array may
            // change under the call or share memory with the outputs below.
            const std::int64_t* given = out_array<std::int64_t>(actions, n, -1, "actions");
            const std::vector<std::int64_t> a(given, given + n);
            StepOutput out;
            out.rewards = out_array<float>(rewards, n, vg.config().teams, "rewards");
            out.terminated = reinterpret_cast<std::uint8_t*>(out_array<bool>(terminated, n, -1, "terminated"));
            out.truncated = reinterpret_cast<std::uint8_t*>(out_array<bool>(truncated, n, -1, "truncated"));
            std::vector<std::uint8_t> on;
            if (!active.is_none()) {
                const bool* given_active = out_array<bool>(active, n, -1, "active");
                on.assign(reinterpret_cast<const std::uint8_t*>(given_active),
                          reinterpret_cast<const std::uint8_t*>(given_active) + n);
            }
            std::vector<IllegalAction> illegal;
            {
                py::gil_scoped_release release;
                illegal = vg.step(a.data(), out, on.empty() ? nullptr : on.data(), keep_ended);
            }
            if (illegal.empty()) return py::none();
            py::list games, refused;
            for (const IllegalAction& x : illegal) {
                games.append(x.game);
                refused.append(x.action);
            }
            return py::make_tuple(games, refused);
        }, py::arg("actions"), py::arg("rewards"), py::arg("terminated"), py::arg("truncated"),
           py::arg("active") = py::none(), py::arg("keep_ended") = false,
           "Plays one action per game (active: a bool array, only the games it marks; keep_ended: an "
           "active game that does not end keeps its earlier ended flag); None, or (games, actions) of the "
           "refused ones (nothing changed).")
        .def("state", [](VectorGameHandle& h, const py::handle& i) {
            Busy busy(h);
            return Game(h.game->state(game_index(*h.game, i)));
        }, py::arg("game"), "A copy of game i's position as a State (no undo history).")
        .def("pending", [](VectorGameHandle& h, const py::handle& i) {
            Busy busy(h);
            return pending_of(h.game->pending(game_index(*h.game, i)));
        }, py::arg("game"), "The move id of game i's placement waiting for declare actions, or None.")
        .def("final_state", [](VectorGameHandle& h, const py::handle& i) -> py::object {
            Busy busy(h);
            const int g = game_index(*h.game, i);
            if (!h.game->ended(g)) return py::none();
            return py::cast(Game(h.game->final_state(g)));
        }, py::arg("game"), "Game i's final position if it ended on the last step, else None.");
}

}  // namespace SEQUENCE_ISA
}  // namespace sequence_bindings
