// Position <-> dict (the plain-int form of docs/state-format.md that python/sequence_game/
// position.py builds with Position.as_core_dict()).
#include <pybind11/stl.h>

#include <algorithm>
#include <climits>

#include "bindings.hpp"
#include "sequence/board.hpp"

namespace sequence_bindings {
inline namespace SEQUENCE_ISA {

using sequence::Position;

namespace {

constexpr const char* kKeys[] = {
    "players", "teams", "seed", "max_turns", "board", "sequences", "hands", "discards", "draw_pile",
    "current_player", "dealer", "turn", "traded_this_turn", "passes", "winner", "is_draw", "rng", "last_draw",
};

bool is_int(const py::handle& v) { return PyLong_Check(v.ptr()) && !PyBool_Check(v.ptr()); }

py::handle item(const py::dict& d, const char* key) {
    if (!d.contains(key)) throw py::value_error(std::string("from_position: missing key '") + key + "'");
    return d[key];
}

py::sequence as_list(const py::handle& v, const std::string& name) {
    if (!py::isinstance<py::list>(v) && !py::isinstance<py::tuple>(v))
        throw py::type_error("from_position: " + name + " must be a list or tuple");
    return py::reinterpret_borrow<py::sequence>(v);
}

int small_int(const py::handle& v, const std::string& name) {
    return static_cast<int>(int_in_range(v, "from_position: " + name, INT_MIN, INT_MAX));
}

std::vector<int> int_list(const py::handle& v, const std::string& name) {
    std::vector<int> out;
    for (const py::handle& x : as_list(v, name)) out.push_back(small_int(x, name + " item"));
    return out;
}

std::vector<std::vector<int>> int_lists(const py::handle& v, const std::string& name) {
    std::vector<std::vector<int>> out;
    int i = 0;
    for (const py::handle& x : as_list(v, name)) out.push_back(int_list(x, name + "[" + std::to_string(i++) + "]"));
    return out;
}

}  // namespace

long long int_in_range(const py::handle& value, const std::string& name, long long lo, long long hi) {
    if (!is_int(value)) throw py::type_error(name + " must be an int, not " + std::string(py::str(py::type::of(value).attr("__name__"))));
    int overflow = 0;
    const long long v = PyLong_AsLongLongAndOverflow(value.ptr(), &overflow);
    if (overflow != 0)  // str() of the int itself may be refused (too many digits) or huge
        throw py::value_error(name + " is an int beyond 64 bits, out of range " + std::to_string(lo) + ".." + std::to_string(hi));
    if (v < lo || v > hi)
        throw py::value_error(name + " is " + std::to_string(v) + ", out of range " + std::to_string(lo) + ".." + std::to_string(hi));
    return v;
}

std::uint64_t uint64_arg(const py::handle& value, const std::string& name) {
    if (!is_int(value)) throw py::type_error(name + " must be an int, not " + std::string(py::str(py::type::of(value).attr("__name__"))));
    const unsigned long long v = PyLong_AsUnsignedLongLong(value.ptr());
    if (PyErr_Occurred()) {
        PyErr_Clear();
        throw py::value_error(name + " is out of range 0..2**64-1");
    }
    return v;
}

Position position_from_dict(const py::dict& d) {
    for (const auto& kv : d) {
        const std::string key = py::str(kv.first);
        bool known = false;
        for (const char* k : kKeys) known = known || key == k;
        if (!known) throw py::value_error("from_position: unknown key '" + key + "'");
    }
    Position pos;
    pos.players = small_int(item(d, "players"), "players");
    pos.teams = small_int(item(d, "teams"), "teams");
    if (!item(d, "seed").is_none()) pos.seed = uint64_arg(item(d, "seed"), "from_position: seed");
    if (!item(d, "max_turns").is_none()) pos.max_turns = small_int(item(d, "max_turns"), "max_turns");

    const std::vector<int> board = int_list(item(d, "board"), "board");
    if (board.size() != static_cast<std::size_t>(sequence::kCells))
        throw py::value_error("from_position: board must hold 100 ints, not " + std::to_string(board.size()));
    std::copy(board.begin(), board.end(), pos.board.begin());

    int k = 0;
    for (const py::handle& entry : as_list(item(d, "sequences"), "sequences")) {
        const std::string name = "sequences[" + std::to_string(k++) + "]";
        const py::sequence pair = as_list(entry, name);
        if (pair.size() != 2) throw py::value_error("from_position: " + name + " must be (team, cells)");
        sequence::PositionSequence seq;
        seq.team = small_int(pair[0], name + " team");
        const std::vector<int> cells = int_list(pair[1], name + " cells");
        if (cells.size() != 5) throw py::value_error("from_position: " + name + " must have 5 cells");
        std::copy(cells.begin(), cells.end(), seq.cells.begin());
        pos.sequences.push_back(seq);
    }
    pos.hands = int_lists(item(d, "hands"), "hands");
    pos.discards = int_lists(item(d, "discards"), "discards");
    pos.draw_pile = int_list(item(d, "draw_pile"), "draw_pile");
    pos.current_player = small_int(item(d, "current_player"), "current_player");
    pos.dealer = small_int(item(d, "dealer"), "dealer");
    pos.turn = small_int(item(d, "turn"), "turn");
    pos.passes = small_int(item(d, "passes"), "passes");
    for (const char* flag : {"traded_this_turn", "is_draw"})
        if (!PyBool_Check(item(d, flag).ptr())) throw py::type_error(std::string("from_position: ") + flag + " must be a bool");
    pos.traded_this_turn = item(d, "traded_this_turn").cast<bool>();
    pos.is_draw = item(d, "is_draw").cast<bool>();
    if (!item(d, "winner").is_none()) pos.winner = small_int(item(d, "winner"), "winner");
    pos.rng = uint64_arg(item(d, "rng"), "from_position: rng");
    const py::handle last = item(d, "last_draw");
    if (!last.is_none()) {
        const py::sequence pair = as_list(last, "last_draw");
        if (pair.size() != 2) throw py::value_error("from_position: last_draw must be None or (player, card_id)");
        pos.last_draw = std::make_pair(small_int(pair[0], "last_draw player"), small_int(pair[1], "last_draw card"));
    }
    return pos;
}

py::dict position_to_dict(const Position& pos) {
    py::dict d;
    d["players"] = pos.players;
    d["teams"] = pos.teams;
    d["seed"] = pos.seed ? py::object(py::int_(*pos.seed)) : py::object(py::none());
    d["max_turns"] = pos.max_turns ? py::object(py::int_(*pos.max_turns)) : py::object(py::none());
    py::list board;
    for (int code : pos.board) board.append(code);
    d["board"] = board;
    py::list seqs;
    for (const auto& seq : pos.sequences) {
        py::tuple cells(5);
        for (int i = 0; i < 5; ++i) cells[i] = py::int_(seq.cells[i]);
        seqs.append(py::make_tuple(seq.team, cells));
    }
    d["sequences"] = seqs;
    const auto lists = [](const std::vector<std::vector<int>>& v) {
        py::list out;
        for (const auto& inner : v) out.append(py::cast(inner));
        return out;
    };
    d["hands"] = lists(pos.hands);
    d["discards"] = lists(pos.discards);
    d["draw_pile"] = py::cast(pos.draw_pile);
    d["current_player"] = pos.current_player;
    d["dealer"] = pos.dealer;
    d["turn"] = pos.turn;
    d["traded_this_turn"] = pos.traded_this_turn;
    d["passes"] = pos.passes;
    d["winner"] = pos.winner ? py::object(py::int_(*pos.winner)) : py::object(py::none());
    d["is_draw"] = pos.is_draw;
    d["rng"] = py::int_(pos.rng);
    d["last_draw"] = pos.last_draw ? py::object(py::make_tuple(pos.last_draw->first, pos.last_draw->second))
                                   : py::object(py::none());
    return d;
}

}  // namespace SEQUENCE_ISA
}  // namespace sequence_bindings
