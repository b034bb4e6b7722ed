// _core.Game: a sequence::Game (GameState + history) for the Python Game class.
// Every refusal raises ValueError (IndexError for a player/cell index out of range) and leaves the
// state unchanged; nothing here can crash on bad input.
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <climits>
#include <optional>
#include <unordered_map>
#include <vector>

#include "bindings.hpp"
#include "sequence/game.hpp"

namespace sequence_bindings {
inline namespace SEQUENCE_ISA {

namespace {

using namespace sequence;

int player_index(const Game& g, const py::handle& p) {
    if (!PyLong_Check(p.ptr()) || PyBool_Check(p.ptr())) throw py::type_error("player must be an int");
    int overflow = 0;
    const long long v = PyLong_AsLongLongAndOverflow(p.ptr(), &overflow);
    if (overflow || v < 0 || v >= g.state().config.players)
        throw py::index_error("player " + (overflow ? std::string("beyond 64 bits") : std::to_string(v)) + " out of range 0.." +
                              std::to_string(g.state().config.players - 1));
    return static_cast<int>(v);
}

int cell_index_arg(const py::handle& c) {
    if (!PyLong_Check(c.ptr()) || PyBool_Check(c.ptr())) throw py::type_error("cell index must be an int");
    int overflow = 0;
    const long long v = PyLong_AsLongLongAndOverflow(c.ptr(), &overflow);
    if (overflow || v < 0 || v >= kCells)
        throw py::index_error("cell index " + (overflow ? std::string("beyond 64 bits") : std::to_string(v)) + " out of range 0..99");
    return static_cast<int>(v);
}

MoveId move_id_arg(const py::handle& id) {
    return static_cast<MoveId>(int_in_range(id, "move_id", 0, UINT32_MAX));
}

Game make_game(const py::handle& players, const py::handle& teams, const py::handle& seed, const py::handle& max_turns) {
    const int n = static_cast<int>(int_in_range(players, "players", 0, 64));
    const int t = static_cast<int>(int_in_range(teams, "teams", 0, 64));
    Config cfg;
    if (!make_config(n, t, cfg))
        throw py::value_error(std::to_string(n) + " players cannot play as " + std::to_string(t) + " teams (R2)");
    const std::uint64_t s = uint64_arg(seed, "seed");
    const std::uint32_t cap = max_turns.is_none() ? 0 : static_cast<std::uint32_t>(int_in_range(max_turns, "max_turns", 1, INT_MAX));
    return Game(new_game(cfg, s, cap));
}

Game from_position_dict(const py::dict& d) {
    std::string error;
    const auto s = from_position(position_from_dict(d), error);
    if (!s) throw py::value_error("from_position: " + error);
    return Game(*s);
}

std::vector<MoveId> legal(const Game& g) {
    std::vector<MoveId> v;
    legal_moves(g.state(), v);
    return v;
}

// legal_moves() as the objects decode(id) makes of the ids (game.py: its shared Move values), each
// id decoded once per process. The cache is here, not a Python dict keyed by the ids: the ids of
// one card's placements share their low bits, which a dict probes by, and a lookup there costs a
// few times more. Used with the GIL held (this module keeps the GIL), which guards the cache; never
// destroyed, so that no object is released after the interpreter is gone.
py::list legal_object_list(const Game& g, const py::function& decode) {
    static auto* const cache = new std::unordered_map<MoveId, py::object>();
    MoveList list;
    std::vector<MoveId> many;
    const MoveId* ids = list.moves;
    std::size_t n = 0;
    if (legal_moves(g.state(), list)) {
        n = static_cast<std::size_t>(list.size);
    } else {  // > 1024 moves: contrived positions only
        many = legal(g);
        ids = many.data();
        n = many.size();
    }
    py::list out(n);
    for (std::size_t i = 0; i < n; ++i) {
        auto it = cache->find(ids[i]);
        if (it == cache->end()) it = cache->emplace(ids[i], decode(ids[i])).first;
        PyList_SET_ITEM(out.ptr(), static_cast<py::ssize_t>(i), it->second.inc_ref().ptr());
    }
    return out;
}

// legal_moves() straight into a Python list: no std::vector, no per-element pybind11 casts.
py::list legal_list(const Game& g) {
    MoveList list;
    if (!legal_moves(g.state(), list)) return py::cast(legal(g));  // > 1024 moves: contrived positions only
    PyObject* out = PyList_New(list.size);
    if (!out) throw py::error_already_set();
    for (int i = 0; i < list.size; ++i) {
        PyObject* v = PyLong_FromUnsignedLong(list.moves[i]);
        if (!v) {
            Py_DECREF(out);
            throw py::error_already_set();
        }
        PyList_SET_ITEM(out, i, v);
    }
    return py::reinterpret_steal<py::list>(out);
}

py::list hand(const Game& g, const py::handle& p) {
    const int player = player_index(g, p);
    const GameState& s = g.state();
    py::list out;
    for (int i = 0; i < s.hand_count[player]; ++i) out.append(int(s.hands[player][i]));
    return out;
}

py::list discards(const Game& g, const py::handle& p) {
    const int player = player_index(g, p);
    const GameState& s = g.state();
    py::list out;
    for (int i = 0; i < s.discard_size; ++i)
        if (discard_owner(s, i) == player) out.append(int(discard_card(s, i)));
    return out;
}

int cell(const Game& g, const py::handle& c) {
    return board_code(g.state(), cell_index_arg(c));
}

py::array_t<std::int8_t> board(const Game& g) {
    py::array_t<std::int8_t> out({kRows, kCols});
    std::int8_t* data = out.mutable_data();
    for (int i = 0; i < kCells; ++i) data[i] = static_cast<std::int8_t>(board_code(g.state(), i));
    return out;
}

py::list sequences(const Game& g) {
    py::list out;
    for (const auto& seq : to_position(g.state()).sequences) {
        py::tuple cells(kWindowLength);
        for (int i = 0; i < kWindowLength; ++i) cells[i] = py::int_(seq.cells[i]);
        out.append(py::make_tuple(seq.team, cells));
    }
    return out;
}

void table_talk(Game& g, const py::handle& team_arg, const py::dict& cards_arg) {
    const int teams = g.state().config.teams;
    const int team = static_cast<int>(int_in_range(team_arg, "team", 0, teams - 1));
    int cards[kMaxPlayers];
    std::fill(cards, cards + kMaxPlayers, -1);
    for (const auto& kv : cards_arg) {
        const int p = player_index(g, kv.first);
        if (p % teams != team)
            throw py::value_error("table_talk_penalty: player " + std::to_string(p) + " is not in team " + std::to_string(team));
        cards[p] = static_cast<int>(int_in_range(kv.second, "card id of player " + std::to_string(p), 0, kCardKinds - 1));
    }
    for (int p = team; p < g.state().config.players; p += teams)
        if (cards[p] < 0)
            throw py::value_error("table_talk_penalty: player " + std::to_string(p) + " of team " + std::to_string(team) +
                                  " must name a card to discard (R10: every member discards one)");
    const RefereeError e = g.table_talk_penalty(team, cards);
    if (e != RefereeError::None) throw py::value_error(std::string("table_talk_penalty refused: ") + describe(e));
}

void missed(Game& g, const py::handle& p) {
    const RefereeError e = g.missed_draw(player_index(g, p));
    if (e != RefereeError::None) throw py::value_error(std::string("missed_draw refused: ") + describe(e));
}

// A history entry as plain Python values: the move id for a move (the common case, cheapest to
// return from undo()), ("table_talk_penalty", team, {player: card id}) or ("missed_draw", player).
py::object change_object(const Change& c) {
    switch (c.kind) {
        case Change::Kind::TableTalkPenalty: {
            py::dict cards;
            for (int p = 0; p < kMaxPlayers; ++p)
                if (c.cards[p] >= 0) cards[py::int_(p)] = py::int_(int(c.cards[p]));
            return py::make_tuple("table_talk_penalty", int(c.team), cards);
        }
        case Change::Kind::MissedDraw: return py::make_tuple("missed_draw", int(c.player));
        case Change::Kind::Move: break;
    }
    return py::int_(c.move);
}

py::object optional_int(bool present, long long value) {
    return present ? py::object(py::int_(value)) : py::object(py::none());
}

}  // namespace

void init_game(py::module_& m) {
    py::class_<Game>(m, "Game", R"doc(
A game in the compiled core: the state plus its history (every move and referee call since the
game was dealt or loaded, each undoable).

Moves are 32-bit ids (docs/notation.md "Move ids"). Every refused call raises ValueError
(IndexError for an out-of-range player or cell) and leaves the state unchanged.
)doc")
        .def(py::init(&make_game), py::arg("players"), py::arg("teams"), py::arg("seed"), py::arg("max_turns") = py::none(),
             "Deals a new game (R2-R4, docs/rng.md). max_turns: None or a turn cap >= 1.")
        .def_static("from_position", &from_position_dict, py::arg("position"),
                    "A game from a dict with the Position keys (players, teams, seed, max_turns, board[100], "
                    "sequences[(team, cells)], hands, discards, draw_pile (top first), current_player, dealer, "
                    "turn, traded_this_turn, passes, winner, is_draw, rng, last_draw). Empty history. "
                    "ValueError if inconsistent.")
        .def("to_position", [](const Game& g) { return position_to_dict(to_position(g.state())); },
             "The state as a dict with the keys from_position takes.")
        .def("legal_moves", &legal_list,
             "Legal move ids of the current player, ordered by (kind trade<place<remove<pass, card, cell, "
             "declares); [] once the game is over.")
        .def("legal_move_objects", &legal_object_list, py::arg("decode"),
             "legal_moves() as decode(id) of each id, in that order; each id is decoded once per process "
             "and its object kept (game.py passes move_from_id).")
        .def("try_play", [](Game& g, const py::handle& id) { return g.play(move_id_arg(id)) == MoveError::None; },
             py::arg("move_id"), "Plays the move id if it is legal and returns True; else False, state unchanged.")
        .def_static("is_well_formed", [](const py::handle& id) { return is_well_formed(move_id_arg(id)); },
                    py::arg("move_id"),
                    "Whether move_id is the id of a move at all (any position): the one id of each move. "
                    "Every other value decodes to the same move as some well-formed id (docs/notation.md).")
        .def("play", [](Game& g, const py::handle& id) {
            const MoveId move = move_id_arg(id);
            const MoveError e = g.play(move);
            if (e != MoveError::None)
                throw py::value_error("illegal move id " + std::to_string(move) + ": " + describe(e));
        }, py::arg("move_id"), "Plays a legal move id; ValueError (state unchanged) otherwise.")
        .def("undo", [](Game& g) {
            if (g.history_size() == 0) throw py::value_error("nothing to undo");
            py::object change = change_object(g.change(g.history_size() - 1));
            g.undo();
            return change;
        }, "Takes back the last move or referee call and returns it as history() lists it.")
        .def_property_readonly("history_size", &Game::history_size, "The number of entries of history().")
        .def("change", [](const Game& g, const py::handle& index) {
            const long long n = static_cast<long long>(g.history_size());
            if (n == 0) throw py::index_error("the history is empty");
            long long i = int_in_range(index, "index", -n, n - 1);
            return change_object(g.change(static_cast<std::size_t>(i < 0 ? i + n : i)));
        }, py::arg("index"), "Entry index of history() (negative counts from the end); IndexError if the history is empty.")
        .def("history", [](const Game& g) {
            py::list out;
            for (std::size_t i = 0; i < g.history_size(); ++i) out.append(change_object(g.change(i)));
            return out;
        }, "Every move and referee call since the deal (or the loaded position), oldest first: "
           "a move id for a move, (\"table_talk_penalty\", team, {player: card id}) or (\"missed_draw\", player).")
        .def("copy", [](const Game& g) { return Game(g); }, "An independent copy, history included.")
        .def("__copy__", [](const Game& g) { return Game(g); })
        .def("__deepcopy__", [](const Game& g, const py::dict&) { return Game(g); }, py::arg("memo"))
        .def_property_readonly("players", [](const Game& g) { return int(g.state().config.players); })
        .def_property_readonly("teams", [](const Game& g) { return int(g.state().config.teams); })
        .def_property_readonly("current_player", [](const Game& g) { return int(g.state().current_player); })
        .def_property_readonly("dealer", [](const Game& g) { return int(g.state().dealer); })
        .def_property_readonly("turn", [](const Game& g) { return g.state().turn; })
        .def_property_readonly("is_over", [](const Game& g) { return is_over(g.state()); })
        .def_property_readonly("winner", [](const Game& g) { return optional_int(g.state().winner >= 0, g.state().winner); })
        .def_property_readonly("is_draw", [](const Game& g) { return g.state().is_draw; })
        .def_property_readonly("draw_pile_size", [](const Game& g) { return int(g.state().draw_size); })
        .def_property_readonly("max_turns", [](const Game& g) { return optional_int(g.state().max_turns != 0, g.state().max_turns); })
        .def_property_readonly("seed", [](const Game& g) {
            return g.state().has_seed ? py::object(py::int_(g.state().seed)) : py::object(py::none());
        })
        .def_property_readonly("traded_this_turn", [](const Game& g) { return g.state().traded_this_turn; })
        .def_property_readonly("passes", [](const Game& g) { return int(g.state().passes); })
        .def_property_readonly("last_draw", [](const Game& g) -> py::object {
            const GameState& s = g.state();
            if (s.last_draw_player < 0) return py::none();
            return py::make_tuple(int(s.last_draw_player), int(s.last_draw_card));
        }, "None or (player, card id): the last end-of-turn draw (R10 missed_draw).")
        .def("hand", &hand, py::arg("player"), "Card ids in the player's hand, ascending.")
        .def("discards", &discards, py::arg("player"), "Card ids of the player's discard pile, oldest first.")
        .def("cell", &cell, py::arg("index"), "-1 empty, 0..2 a team's chip, 3 corner.")
        .def("locked", [](const Game& g, const py::handle& c) { return g.state().locked.test(cell_index_arg(c)); },
             py::arg("index"), "True if the cell's chip belongs to a completed sequence (R7).")
        .def("sequences", &sequences, "[(team, (5 cell indices ascending))] in the order formed.")
        .def("board", &board, "A (10, 10) int8 copy of the board: -1 empty, 0..2 team, 3 corner.")
        .def("dead_cards", [](const Game& g) {
            Card out[kMaxHand];
            const int n = dead_cards(g.state(), g.state().current_player, out);
            return std::vector<int>(out, out + n);
        }, "Distinct dead card ids (R5) in the current player's hand, ascending.")
        .def("table_talk_penalty", &table_talk, py::arg("team"), py::arg("cards"),
             "R10: every member of team discards cards[player] (a dict player -> card id); nothing is drawn.")
        .def("missed_draw", &missed, py::arg("player"),
             "R10: the player's last end-of-turn draw goes back on top of the draw pile.");
}

}  // namespace SEQUENCE_ISA
}  // namespace sequence_bindings
