// One test per rule (R5-R10) on hand-built positions.
#include "helpers.hpp"
#include "sequence/game.hpp"
#include "sequence/rng.hpp"
#include "test.hpp"

using namespace sequence;
using namespace test;

namespace {

// Row 4 reads 9C QS 7C 6H 5H 4H AH 9D 7H AS; (4,4) is 5H, whose other cell is (6,8).
const int k5H = card("5H");

Position row4_position(std::initializer_list<int> team0_cols) {
    Position pos = make_position(2, 2, {{k5H, card("2S")}, {card("3S")}});
    for (int col : team0_cols) pos.board[at(4, col)] = 0;
    return pos;
}

}  // namespace

TEST(r7_five_in_a_row_declares_one_sequence) {
    const GameState s = load(row4_position({0, 1, 2, 3}));
    const auto ms = placements(s, k5H, at(4, 4));
    CHECK_EQ(int(ms.size()), 1);
    CHECK(Move::from_id(ms[0]).declare(kEast) == 5);  // the window starting 4 steps west
    GameState t = s;
    apply_move(t, ms[0]);
    CHECK_EQ(int(t.sequence_count), 1);
    CHECK(t.locked.test(at(4, 0)) && t.locked.test(at(4, 4)));
    CHECK_EQ(int(t.winner), -1);  // R8: two teams need two sequences
    CHECK_EQ(int(t.current_player), 1);
    // The other cell of 5H declares nothing.
    const auto other = placements(s, k5H, at(6, 8));
    CHECK(other.size() == 1 && Move::from_id(other[0]).declares == 0);
}

TEST(r7_nine_in_a_row_is_two_sequences_and_r8_wins) {
    const GameState s = load(row4_position({0, 1, 2, 3, 5, 6, 7, 8}));
    const auto ms = placements(s, k5H, at(4, 4));
    CHECK_EQ(int(ms.size()), 1);
    CHECK_EQ(Move::from_id(ms[0]).declare(kEast), kDeclarePair);
    CHECK((declared(ms[0]) == std::vector<std::vector<int>>{{40, 41, 42, 43, 44}, {44, 45, 46, 47, 48}}));
    GameState t = s;
    apply_move(t, ms[0]);
    CHECK_EQ(int(t.sequence_count), 2);
    CHECK_EQ(t.locked.count(), 9);
    // R8: the game ends at once, before the winner draws.
    CHECK_EQ(int(t.winner), 0);
    CHECK_EQ(int(t.hand_count[0]), 1);
    CHECK_EQ(int(t.current_player), 0);
    CHECK_EQ(int(t.turn), 1);
    CHECK(moves(t).empty());
    CHECK(check_move(t, Move::pass().id()) == MoveError::GameOver);
}

TEST(r7_six_in_a_row_player_chooses_which_five) {
    const GameState s = load(row4_position({0, 1, 2, 3, 5}));
    const auto ms = placements(s, k5H, at(4, 4));
    CHECK_EQ(int(ms.size()), 2);
    CHECK((declared(ms[0]) == std::vector<std::vector<int>>{{40, 41, 42, 43, 44}}));
    CHECK((declared(ms[1]) == std::vector<std::vector<int>>{{41, 42, 43, 44, 45}}));
    // A placement must declare (R7): the bare placement is not legal.
    CHECK(check_move(s, Move::place(k5H, at(4, 4)).id()) == MoveError::WrongDeclares);
    GameState t = s;
    apply_move(t, ms[1]);
    CHECK(!t.locked.test(at(4, 0)) && t.locked.test(at(4, 5)));  // the sixth chip stays removable
}

TEST(r7_choices_in_two_directions_are_ordered_by_declares) {
    // E: (4,0..3) + (4,5); S: (3,4) + (5,4..8): two choices each, four moves.
    Position pos = row4_position({0, 1, 2, 3, 5});
    for (int row : {3, 5, 6, 7, 8}) pos.board[at(row, 4)] = 0;
    const GameState s = load(pos);
    const auto ms = placements(s, k5H, at(4, 4));
    CHECK_EQ(int(ms.size()), 4);
    const std::vector<std::vector<int>> firsts[] = {{{34}, {40}}, {{34}, {41}}, {{40}, {44}}, {{41}, {44}}};
    for (int i = 0; i < 4 && i < int(ms.size()); ++i) {
        const auto d = declared(ms[i]);
        CHECK(d.size() == 2 && d[0][0] == firsts[i][0][0] && d[1][0] == firsts[i][1][0]);
    }
}

TEST(r7_new_sequence_may_share_one_cell_with_an_old_one) {
    // 9H is on (2,8) and (6,4); column 4 through the old sequence's last cell.
    Position pos;
    pos = make_position(2, 2, {{card("9H")}, {card("3S")}});
    for (int col = 0; col <= 4; ++col) pos.board[at(4, col)] = 0;
    for (int row : {5, 7, 8}) pos.board[at(row, 4)] = 0;
    pos.sequences.push_back({0, {40, 41, 42, 43, 44}});
    const GameState s = load(pos);
    const auto ms = placements(s, card("9H"), at(6, 4));
    CHECK(ms.size() == 1 && (declared(ms[0]) == std::vector<std::vector<int>>{{44, 54, 64, 74, 84}}));
    GameState t = s;
    apply_move(t, ms[0]);
    CHECK_EQ(int(t.winner), 0);
}

TEST(r7_sharing_two_cells_with_an_old_sequence_is_no_sequence) {
    Position pos = make_position(2, 2, {{card("9D")}, {card("3S")}});  // 9D is on (4,7)
    for (int col = 0; col <= 6; ++col) pos.board[at(4, col)] = 0;
    pos.sequences.push_back({0, {40, 41, 42, 43, 44}});
    const GameState s = load(pos);
    // (4,3..7) shares two cells with the sequence; (4,4..8) lacks (4,8).
    const auto ms = placements(s, card("9D"), at(4, 7));
    CHECK(ms.size() == 1 && Move::from_id(ms[0]).declares == 0);
}

TEST(r7_corners_count_for_every_team) {
    // Row 0: corner, 2S 3S 4S 5S; column 0: corner, 6C 7C 8C 9C.
    Position pos = make_position(2, 2, {{card("5S")}, {card("9C")}});
    for (int col = 1; col <= 3; ++col) pos.board[at(0, col)] = 0;
    for (int row = 1; row <= 3; ++row) pos.board[at(row, 0)] = 1;
    GameState s = load(pos);
    auto ms = placements(s, card("5S"), at(0, 4));
    CHECK(ms.size() == 1 && (declared(ms[0]) == std::vector<std::vector<int>>{{0, 1, 2, 3, 4}}));
    apply_move(s, ms[0]);
    ms = placements(s, card("9C"), at(4, 0));
    CHECK(ms.size() == 1 && (declared(ms[0]) == std::vector<std::vector<int>>{{0, 10, 20, 30, 40}}));
}

TEST(r8_three_teams_win_with_one_sequence) {
    Position pos = make_position(3, 3, {{k5H}, {card("3S")}, {card("4S")}});
    for (int col = 0; col <= 3; ++col) pos.board[at(4, col)] = 0;
    GameState s = load(pos);
    const auto ms = placements(s, k5H, at(4, 4));
    CHECK(play_move(s, ms[0]) == MoveError::None);
    CHECK_EQ(int(s.winner), 0);
    CHECK(is_over(s));
}

TEST(r5_two_eyed_jack_places_anywhere_empty) {
    Position pos = make_position(2, 2, {{card("JD")}, {card("3S")}});
    pos.board[at(4, 4)] = 1;
    const GameState s = load(pos);
    const auto ms = moves(s);
    CHECK_EQ(int(ms.size()), 95);  // 96 non-corner cells, one taken
    CHECK(check_move(s, Move::place(card("JD"), at(4, 4)).id()) == MoveError::CellOccupied);
    CHECK(check_move(s, Move::place(card("JD"), 0).id()) == MoveError::CornerCell);
    CHECK(check_move(s, Move::place(card("3S"), at(0, 2)).id()) == MoveError::CardNotInHand);
}

TEST(r5_one_eyed_jack_removes_unlocked_chips_of_other_teams) {
    Position pos = make_position(2, 2, {{card("JH")}, {card("3S")}});
    for (int col = 0; col <= 4; ++col) pos.board[at(4, col)] = 1;
    pos.sequences.push_back({1, {40, 41, 42, 43, 44}});
    pos.board[at(5, 5)] = 1;
    pos.board[at(6, 6)] = 0;
    GameState s = load(pos);
    CHECK((moves(s) == std::vector<MoveId>{Move::remove(card("JH"), at(5, 5)).id()}));
    CHECK(check_move(s, Move::remove(card("JH"), at(4, 1)).id()) == MoveError::LockedChip);
    CHECK(check_move(s, Move::remove(card("JH"), at(6, 6)).id()) == MoveError::OwnChip);
    CHECK(check_move(s, Move::remove(card("JH"), at(7, 7)).id()) == MoveError::NoChipToRemove);
    CHECK(check_move(s, Move::place(card("JH"), at(7, 7)).id()) == MoveError::WrongCardForKind);
    CHECK(play_move(s, Move::remove(card("JH"), at(5, 5)).id()) == MoveError::None);
    CHECK(!occupied(s).test(at(5, 5)));
    CHECK_EQ(int(s.hand_count[0]), 1);  // drew a replacement
}

TEST(r5_dead_card_trade_once_a_turn) {
    // 5H (13) is on (4,4) and (6,8); 6H (17) on (4,3) and (5,8). Both dead.
    Position pos = make_position(2, 2, {{card("2S"), card("6H"), k5H}, {card("3S")}});
    for (int cell : {at(4, 4), at(4, 3), at(5, 8)}) pos.board[cell] = 1;
    pos.board[at(6, 8)] = 0;
    GameState s = load(pos);
    auto ms = moves(s);
    CHECK(ms.size() >= 2 && ms[0] == Move::trade(k5H).id() && ms[1] == Move::trade(card("6H")).id());
    Card dead[kMaxHand];
    CHECK_EQ(dead_cards(s, 0, dead), 2);
    CHECK(check_move(s, Move::trade(card("2S")).id()) == MoveError::NotDeadCard);
    CHECK(check_move(s, Move::trade(card("JD")).id()) == MoveError::WrongCardForKind);
    const int top = pos.draw_pile[0];
    CHECK(play_move(s, Move::trade(k5H).id()) == MoveError::None);
    CHECK(s.traded_this_turn && s.current_player == 0 && s.turn == 0);
    CHECK(hand_contains(s, 0, top) && !hand_contains(s, 0, k5H) && s.hand_count[0] == 3);
    CHECK_EQ(int(s.last_draw_player), -1);
    CHECK(check_move(s, Move::trade(card("6H")).id()) == MoveError::AlreadyTraded);
    for (MoveId m : moves(s)) CHECK(Move::from_id(m).kind != MoveKind::Trade);
    // The play after the trade ends the turn and clears the flag.
    CHECK(play_move(s, Move::place(card("2S"), at(0, 1)).id()) == MoveError::None);
    CHECK(!s.traded_this_turn && s.current_player == 1 && s.turn == 1);
}

TEST(r5_pass_only_without_a_play_and_stalemate) {
    // One-eyed jacks with nothing to remove: no legal play, so a pass that counts (R5).
    Position pos = make_position(2, 2, {{card("JS")}, {card("JH")}});
    GameState s = load(pos);
    CHECK((moves(s) == std::vector<MoveId>{Move::pass().id()}));
    CHECK(play_move(s, Move::pass().id()) == MoveError::None);
    CHECK(s.passes == 1 && s.current_player == 1 && s.turn == 1 && !s.is_draw);
    CHECK(play_move(s, Move::pass().id()) == MoveError::None);
    CHECK(s.passes == 2 && s.is_draw && s.turn == 2);
    CHECK(moves(s).empty());
    // A pass is refused while a play exists.
    GameState t = load(make_position(2, 2, {{card("2S")}, {}}));
    CHECK(check_move(t, Move::pass().id()) == MoveError::PlayAvailable);
}

TEST(r5_pass_holding_a_dead_card_does_not_count) {
    Position pos = make_position(2, 2, {{k5H, card("JS")}, {card("JH")}});
    pos.board[at(4, 4)] = 0;
    pos.board[at(6, 8)] = 0;
    pos.passes = 1;
    GameState s = load(pos);
    CHECK((moves(s) == std::vector<MoveId>{Move::trade(k5H).id(), Move::pass().id()}));
    CHECK(play_move(s, Move::pass().id()) == MoveError::None);
    CHECK_EQ(int(s.passes), 0);
    // After a trade, a pass does not count either.
    Position q = make_position(2, 2, {{k5H, card("JS")}, {card("JH")}});
    q.board[at(4, 4)] = 0;
    q.board[at(6, 8)] = 0;
    q.passes = 1;
    // The replacement drawn is the other JS, as useless: nothing of team 1 to remove.
    std::vector<int> rest = q.draw_pile;
    rest.erase(std::find(rest.begin(), rest.end(), card("JS")));
    q.draw_pile = {card("JS")};
    q.discards[1] = rest;
    GameState t = load(q);
    CHECK(play_move(t, Move::trade(k5H).id()) == MoveError::None);
    CHECK((moves(t) == std::vector<MoveId>{Move::pass().id()}));
    CHECK(play_move(t, Move::pass().id()) == MoveError::None);
    CHECK_EQ(int(t.passes), 0);
}

TEST(r6_reshuffle_gathers_discards_in_seat_order) {
    // Draw pile empty; every card not in a hand lies in the discard piles.
    Position pos = make_position(2, 2, {{card("2S")}, {card("3S")}});
    add_discards(pos, 1, {card("AC"), card("KC")});
    add_discards(pos, 0, {card("QC"), card("AD")});
    std::vector<int> rest = pos.draw_pile;
    pos.draw_pile.clear();
    for (int c : rest) pos.discards[c % 2].push_back(c);
    pos.rng = 99;
    std::vector<int> gathered;
    for (int p = 0; p < 2; ++p) gathered.insert(gathered.end(), pos.discards[p].begin(), pos.discards[p].end());
    SplitMix64 rng(99);
    shuffle(gathered.data(), int(gathered.size()), rng);
    GameState s = load(pos);
    CHECK(play_move(s, Move::place(card("2S"), at(0, 1)).id()) == MoveError::None);
    // The 2S just played is gathered too: it was discarded before the draw.
    std::vector<int> expect;
    for (int p = 0; p < 2; ++p) {
        expect.insert(expect.end(), pos.discards[p].begin(), pos.discards[p].end());
        if (p == 0) expect.push_back(card("2S"));
    }
    SplitMix64 r2(99);
    shuffle(expect.data(), int(expect.size()), r2);
    const Position after = to_position(s);
    CHECK(after.hands[0] == std::vector<int>{expect[0]});
    CHECK(after.draw_pile == std::vector<int>(expect.begin() + 1, expect.end()));
    CHECK(after.discards[0].empty() && after.discards[1].empty());
    CHECK(after.rng == r2.state());
    CHECK(after.last_draw == std::make_optional(std::make_pair(0, expect[0])));
}

TEST(r8_turn_cap_ends_in_a_draw) {
    Position pos = make_position(2, 2, {{card("2S")}, {card("3S")}});
    pos.max_turns = 1;
    GameState s = load(pos);
    CHECK(play_move(s, Move::place(card("2S"), at(0, 1)).id()) == MoveError::None);
    CHECK(s.is_draw && s.current_player == 0 && s.last_draw_player == 0);
    CHECK(moves(s).empty());
}

TEST(r10_table_talk_penalty) {
    Position pos = make_position(4, 2, {{card("2S"), card("3S")}, {card("4S")}, {card("5S"), card("6S")}, {}});
    pos.last_draw = std::make_pair(2, card("6S"));
    Game g(load(pos));
    int cards[kMaxPlayers];
    std::fill(cards, cards + kMaxPlayers, -1);
    cards[0] = card("3S");
    CHECK(g.table_talk_penalty(0, cards) == RefereeError::MissingCard);  // player 2 names no card
    cards[2] = card("7S");
    CHECK(g.table_talk_penalty(0, cards) == RefereeError::CardNotInHand);
    cards[2] = card("6S");
    cards[1] = card("4S");
    CHECK(g.table_talk_penalty(0, cards) == RefereeError::NotTeamMember);
    cards[1] = -1;
    CHECK(g.table_talk_penalty(3, cards) == RefereeError::BadTeam);
    CHECK_EQ(int(g.history_size()), 0);
    CHECK(g.table_talk_penalty(0, cards) == RefereeError::None);
    const Position after = to_position(g.state());
    CHECK(after.hands[0] == std::vector<int>{card("2S")});
    CHECK(after.hands[2] == std::vector<int>{card("5S")});
    CHECK(after.discards[0] == std::vector<int>{card("3S")});
    CHECK(after.discards[2] == std::vector<int>{card("6S")});
    CHECK(!after.last_draw);  // its card left the hand
    CHECK(after.draw_pile == pos.draw_pile);
    CHECK(g.undo() && to_position(g.state()).hands == pos.hands);
}

TEST(r10_missed_draw_returns_the_card_to_the_top) {
    GameState s = load(make_position(2, 2, {{card("2S")}, {card("3S")}}));
    CHECK(missed_draw(s, 0) == RefereeError::NoLastDraw);
    CHECK(play_move(s, Move::place(card("2S"), at(0, 1)).id()) == MoveError::None);
    const int drawn = s.last_draw_card;
    CHECK(missed_draw(s, 1) == RefereeError::NotLastDrawPlayer);
    CHECK(missed_draw(s, 12) == RefereeError::BadPlayer);
    CHECK(missed_draw(s, 0) == RefereeError::None);
    CHECK(s.hand_count[0] == 0 && draw_pile_card(s, s.draw_size - 1) == drawn && s.last_draw_player == -1);
    CHECK(missed_draw(s, 0) == RefereeError::NoLastDraw);
    // The next draw takes it.
    CHECK(play_move(s, Move::place(card("3S"), at(0, 2)).id()) == MoveError::None);
    CHECK(hand_contains(s, 1, drawn));
}

TEST(position_refusals) {
    std::string error;
    Position good = make_position(2, 2, {{card("2S")}, {card("3S")}});
    CHECK(from_position(good, error).has_value());
    const auto refused = [&](Position p) { return !from_position(p, error).has_value() && !error.empty(); };
    Position p = good; p.players = 5; CHECK(refused(p));
    p = good; p.teams = 3; CHECK(refused(p));
    p = good; p.board[0] = -1; CHECK(refused(p));
    p = good; p.board[1] = 3; CHECK(refused(p));
    p = good; p.board[1] = 2; CHECK(refused(p));
    p = good; p.sequences.push_back({0, {1, 2, 3, 4, 5}}); CHECK(refused(p));  // not the team's chips
    p = good; for (int c = 1; c <= 4; ++c) p.board[c] = 0;
    p.sequences.push_back({0, {0, 1, 2, 3, 4}}); CHECK(from_position(p, error).has_value());
    p.sequences.push_back({0, {0, 1, 2, 3, 4}}); CHECK(refused(p));  // shares five cells
    p = good; p.sequences.push_back({0, {8, 9, 10, 11, 12}}); CHECK(refused(p));
    p = good; p.hands[0] = {0, 1, 2, 3, 4, 5, 6, 7}; CHECK(refused(p));
    p = good; p.hands[0] = {52}; CHECK(refused(p));
    p = good; p.draw_pile.pop_back(); CHECK(refused(p));
    p = good; p.draw_pile.push_back(0); CHECK(refused(p));
    p = good; p.hands.pop_back(); CHECK(refused(p));
    p = good; p.current_player = 2; CHECK(refused(p));
    p = good; p.dealer = -1; CHECK(refused(p));
    p = good; p.turn = -1; CHECK(refused(p));
    p = good; p.max_turns = 0; CHECK(refused(p));
    p = good; p.passes = 2; CHECK(refused(p));
    p.is_draw = true; CHECK(from_position(p, error).has_value());
    p = good; p.winner = 0; CHECK(refused(p));
    p = good; p.last_draw = std::make_pair(0, card("3S")); CHECK(refused(p));
    p = good; p.last_draw = std::make_pair(1, card("3S")); CHECK(from_position(p, error).has_value());
    // Unsorted hands are sorted.
    p = make_position(2, 2, {{card("3S"), card("2S")}, {}});
    CHECK((to_position(*from_position(p, error)).hands[0] == std::vector<int>{card("2S"), card("3S")}));
}
