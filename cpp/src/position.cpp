#include "sequence/position.hpp"

#include <algorithm>
#include <tuple>

#include "sequence/board.hpp"

namespace sequence {
inline namespace SEQUENCE_ISA {

int board_code(const GameState& s, int cell) {
    for (int t = 0; t < kMaxTeams; ++t)
        if (s.chips[t].test(cell)) return t;
    return is_corner(cell) ? kBoardCorner : kBoardEmpty;
}

Position to_position(const GameState& s) {
    Position pos;
    const int n = s.config.players;
    pos.players = n;
    pos.teams = s.config.teams;
    if (s.has_seed) pos.seed = s.seed;
    if (s.max_turns != 0) pos.max_turns = static_cast<int>(s.max_turns);
    for (int cell = 0; cell < kCells; ++cell) pos.board[cell] = board_code(s, cell);
    for (int i = 0; i < s.sequence_count; ++i) {
        PositionSequence seq;
        seq.team = s.sequences[i].team;
        for (int k = 0; k < kWindowLength; ++k) seq.cells[k] = window_cell(s.sequences[i].window, k);
        pos.sequences.push_back(seq);
    }
    pos.hands.resize(n);
    pos.discards.resize(n);
    for (int p = 0; p < n; ++p) pos.hands[p].assign(s.hands[p], s.hands[p] + s.hand_count[p]);
    for (int i = 0; i < s.discard_size; ++i) pos.discards[discard_owner(s, i)].push_back(discard_card(s, i));
    for (int k = s.draw_size - 1; k >= 0; --k) pos.draw_pile.push_back(draw_pile_card(s, k));
    pos.current_player = s.current_player;
    pos.dealer = s.dealer;
    pos.turn = static_cast<int>(s.turn);
    pos.traded_this_turn = s.traded_this_turn;
    pos.passes = s.passes;
    if (s.winner >= 0) pos.winner = s.winner;
    pos.is_draw = s.is_draw;
    pos.rng = s.rng;
    if (s.last_draw_player >= 0) pos.last_draw = std::make_pair(int(s.last_draw_player), int(s.last_draw_card));
    return pos;
}

namespace {

std::string str(int v) { return std::to_string(v); }

bool fail(std::string& error, std::string message) {
    error = std::move(message);
    return false;
}

bool read_board(const Position& pos, GameState& s, std::string& error) {
    for (int cell = 0; cell < kCells; ++cell) {
        const int code = pos.board[cell];
        const std::string where = "board[" + str(cell) + "] (row " + str(row_of(cell)) + ", col " + str(col_of(cell)) + ")";
        if (is_corner(cell) != (code == kBoardCorner))
            return fail(error, where + " is " + str(code) + ": code 3 marks exactly the four corners (R1)");
        if (code == kBoardCorner) continue;
        if (code < kBoardEmpty || code >= pos.teams)
            return fail(error, where + " is " + str(code) + "; use -1 (empty) or a team 0.." + str(pos.teams - 1));
        if (code >= 0) s.chips[code].set(cell);
    }
    return true;
}

bool read_sequences(const Position& pos, GameState& s, std::string& error) {
    if (pos.sequences.size() > static_cast<std::size_t>(kMaxSequences))
        return fail(error, "sequences: " + str(int(pos.sequences.size())) + " sequences; at most " + str(kMaxSequences) + " fit");
    for (std::size_t i = 0; i < pos.sequences.size(); ++i) {
        const PositionSequence& seq = pos.sequences[i];
        const std::string where = "sequences[" + str(int(i)) + "]";
        if (seq.team < 0 || seq.team >= pos.teams)
            return fail(error, where + " has team " + str(seq.team) + "; teams are 0.." + str(pos.teams - 1));
        std::array<int, kWindowLength> cells = seq.cells;
        std::sort(cells.begin(), cells.end());
        const int w = find_window(cells.data());
        if (w < 0) return fail(error, where + " is not five cells in a straight line (R7)");
        if (!window_mask(w).subset_of(s.chips[seq.team] | corners()))
            return fail(error, where + " covers a cell that is neither a chip of team " + str(seq.team) + " nor a corner (R7)");
        for (int j = 0; j < s.sequence_count; ++j)
            if (s.sequences[j].team == seq.team && (window_mask(w) & window_mask(s.sequences[j].window)).count() > 1)
                return fail(error, where + " shares more than one cell with sequences[" + str(j) + "] of the same team (R7)");
        s.sequences[s.sequence_count++] = {static_cast<std::uint8_t>(seq.team), static_cast<std::uint8_t>(w)};
        s.locked |= window_mask(w) & ~corners();
    }
    return true;
}

bool read_cards(const Position& pos, GameState& s, std::string& error) {
    const int n = pos.players;
    if (pos.hands.size() != static_cast<std::size_t>(n) || pos.discards.size() != static_cast<std::size_t>(n))
        return fail(error, "hands and discards need one list per player (" + str(n) + ")");
    int count[kCardKinds] = {};
    const auto take = [&](int card, const std::string& where) {
        if (!is_valid_card(card)) return fail(error, where + " holds " + str(card) + ", not a card id 0..51");
        if (++count[card] > kCopiesPerCard) return fail(error, "card " + format_card(card) + " appears more than twice (R1)");
        return true;
    };
    for (int p = 0; p < n; ++p) {
        if (pos.hands[p].size() > s.config.hand_size)
            return fail(error, "hands[" + str(p) + "] holds " + str(int(pos.hands[p].size())) + " cards; at most " +
                                   str(s.config.hand_size) + " (R3)");
        for (int card : pos.hands[p]) {
            if (!take(card, "hands[" + str(p) + "]")) return false;
            hand_insert(s, p, card);
        }
    }
    for (int p = 0; p < n; ++p)
        for (int card : pos.discards[p]) {
            if (!take(card, "discards[" + str(p) + "]")) return false;
            push_discard(s, card, p);
        }
    for (int card : pos.draw_pile)
        if (!take(card, "draw_pile")) return false;
    for (int card = 0; card < kCardKinds; ++card)
        if (count[card] != kCopiesPerCard)
            return fail(error, "card " + format_card(card) + " appears " + str(count[card]) +
                                   " times; the deck has exactly two of each card (R1)");
    s.draw_size = static_cast<std::uint8_t>(pos.draw_pile.size());
    for (int k = 0; k < s.draw_size; ++k) set_draw_pile_card(s, k, static_cast<Card>(pos.draw_pile[s.draw_size - 1 - k]));
    return true;
}

bool read_counters(const Position& pos, GameState& s, std::string& error) {
    const int n = pos.players;
    if (pos.current_player < 0 || pos.current_player >= n) return fail(error, "current_player must be 0.." + str(n - 1));
    if (pos.dealer < 0 || pos.dealer >= n) return fail(error, "dealer must be 0.." + str(n - 1));
    if (pos.turn < 0) return fail(error, "turn must not be negative");
    if (pos.max_turns && *pos.max_turns < 1) return fail(error, "max_turns must be at least 1 (or none)");
    if (pos.passes < 0 || pos.passes > n) return fail(error, "passes must be 0.." + str(n));
    int derived = -1;  // R8: the winner follows from the sequences
    for (int t = 0; t < pos.teams; ++t)
        if (team_sequences(s, t) >= s.config.sequences_to_win) {
            if (derived >= 0) return fail(error, "sequences: more than one team has won (R8)");
            derived = t;
        }
    if (pos.winner.value_or(-1) != derived)
        return fail(error, "winner disagrees with the sequences (R8): the sequences say " +
                               (derived < 0 ? std::string("none") : "team " + str(derived)));
    if (derived >= 0 && pos.is_draw) return fail(error, "a game cannot be both won and drawn");
    const bool over = derived >= 0 || pos.is_draw;
    if (!over && pos.passes >= n)
        return fail(error, "passes is " + str(pos.passes) + ": " + str(n) + " counted passes end the game in a draw (R5)");
    if (pos.last_draw) {
        const auto [player, card] = *pos.last_draw;
        if (player < 0 || player >= n) return fail(error, "last_draw player must be 0.." + str(n - 1));
        if (!is_valid_card(card)) return fail(error, "last_draw card must be a card id 0..51");
        // A winning play may spend the card just drawn (R8 stops before the draw), so a finished
        // game may name a card no longer held; referee calls are refused then anyway.
        if (!over && !hand_contains(s, player, card))
            return fail(error, "last_draw card " + format_card(card) + " is not in player " + str(player) + "'s hand (R10)");
        s.last_draw_player = static_cast<std::int8_t>(player);
        s.last_draw_card = static_cast<Card>(card);
    }
    s.current_player = static_cast<std::uint8_t>(pos.current_player);
    s.dealer = static_cast<std::uint8_t>(pos.dealer);
    s.turn = static_cast<std::uint32_t>(pos.turn);
    s.max_turns = pos.max_turns ? static_cast<std::uint32_t>(*pos.max_turns) : 0;
    s.traded_this_turn = pos.traded_this_turn;
    s.passes = static_cast<std::uint8_t>(pos.passes);
    s.winner = static_cast<std::int8_t>(derived);
    s.is_draw = pos.is_draw;
    s.rng = pos.rng;
    s.has_seed = pos.seed.has_value();
    s.seed = pos.seed.value_or(0);
    return true;
}

}  // namespace

std::optional<GameState> from_position(const Position& pos, std::string& error) {
    GameState s;
    if (!make_config(pos.players, pos.teams, s.config)) {
        error = "players " + str(pos.players) + " cannot play as " + str(pos.teams) + " teams (R2)";
        return std::nullopt;
    }
    if (!read_board(pos, s, error) || !read_sequences(pos, s, error) || !read_cards(pos, s, error) ||
        !read_counters(pos, s, error))
        return std::nullopt;
    return s;
}

bool operator==(const Position& a, const Position& b) {
    return std::tie(a.players, a.teams, a.seed, a.max_turns, a.board, a.sequences, a.hands, a.discards,
                    a.draw_pile, a.current_player, a.dealer, a.turn, a.traded_this_turn, a.passes, a.winner,
                    a.is_draw, a.rng, a.last_draw) ==
           std::tie(b.players, b.teams, b.seed, b.max_turns, b.board, b.sequences, b.hands, b.discards,
                    b.draw_pile, b.current_player, b.dealer, b.turn, b.traded_this_turn, b.passes, b.winner,
                    b.is_draw, b.rng, b.last_draw);
}

}  // namespace SEQUENCE_ISA
}  // namespace sequence
