// Inference of hidden cards (search/inference.hpp): the evidence of a turn makes the hands that
// would have played better unlikely, the sampled deals shift accordingly and stay consistent with
// the observation, and the search with inference reads nothing hidden (R9).
#include <cmath>
#include <cstring>
#include <vector>

#include "helpers.hpp"
#include "sequence/game.hpp"
#include "sequence/playout.hpp"
#include "sequence/rng.hpp"
#include "sequence/search/inference.hpp"
#include "sequence/search/ismcts.hpp"
#include "test.hpp"

using namespace sequence;
using namespace test;

namespace {

SearchOptions inference_options() {
    SearchOptions o;
    o.inference = InferenceKind::Recent;
    o.inference_plays = 4;
    o.inference_strength = 1.0;
    o.inference_tries = 16;
    return o;
}

// Player 1 (team 1) to move holds four in a row on row 5 (cells (5,0)..(5,3): 10C 10S 8C 7H), whose
// gap (5,4) shows 2H (R1). `hand` is player 1's hand; player 0 holds `mine`.
GameState four_in_a_row(const std::vector<int>& hand, const std::vector<int>& mine) {
    Position pos = make_position(2, 2, {mine, hand});
    for (int c = 0; c <= 3; ++c) pos.board[at(5, c)] = 1;
    pos.board[at(0, 3)] = 0;  // a chip of player 0 somewhere else
    pos.current_player = 1;
    return load(pos);
}

// The mean likelihood of player 1's evidence for hand[0..n) over the hidden draws.
double mean_likelihood(const InferenceModel& m, const std::vector<int>& hand) {
    std::vector<Card> h(hand.begin(), hand.end());
    SplitMix64 rng(5);
    double sum = 0;
    const int k = 4000;
    for (int i = 0; i < k; ++i) sum += m.likelihood(1, h.data(), static_cast<int>(h.size()), rng);
    return sum / k;
}

// A history of one change: `move` played from `before`; the root is the state after it, seen by player 0.
struct OneTurn {
    GameState before, after;
    std::vector<PublicChange> history;
    Observation root;
};
OneTurn one_turn(const GameState& before, MoveId move) {
    OneTurn t;
    t.before = before;
    t.after = before;
    apply_move(t.after, move);
    PublicChange pc;
    pc.before = observe(before, 0).pub;
    pc.move = move;
    t.history.push_back(pc);
    t.root = observe(t.after, 0);
    return t;
}

}  // namespace

TEST(inference_a_hand_that_could_have_completed_a_sequence_but_did_not_is_unlikely) {
    // R7: player 1 could complete a sequence with 2H on (5,4) but places 5S on (0,4) instead.
    // Now holding 2H (held then unless it is the card drawn after the play) explains that play
    // badly; a hand without 2H (nor a two-eyed jack) explains it well.
    const int fives = card("5S");
    const GameState before = four_in_a_row({card("2H"), fives, card("3D"), card("4D"), card("6D"), card("7D"), card("9H")},
                                           {card("AS"), card("KS"), card("QS"), card("TS"), card("9S"), card("8S"), card("7S")});
    const std::vector<MoveId> place = placements(before, fives, at(0, 4));
    CHECK(place.size() == 1);
    const OneTurn t = one_turn(before, place[0]);
    const InferenceModel model(t.root, t.history, inference_options());
    CHECK(model.has_evidence());
    CHECK(model.events(1).size() == 1 && model.events(0).empty());
    const double with_gap = mean_likelihood(model, {card("2H"), card("3D"), card("4D"), card("6D"), card("7D"), card("9H"), card("2C")});
    const double without = mean_likelihood(model, {card("3D"), card("4D"), card("6D"), card("7D"), card("9H"), card("2C"), card("3C")});
    const double with_wild = mean_likelihood(model, {card("JD"), card("3D"), card("4D"), card("6D"), card("7D"), card("9H"), card("2C")});
    // Holding the gap card: likely only when it is the card drawn after the play (1 in 7).
    CHECK(with_gap < 0.2);
    CHECK(with_gap > 0.1);
    CHECK(without > 0.9);
    CHECK(with_wild < 0.2);  // a two-eyed jack completes it too (R5)
    // Zero weight: no evidence; a margin wider than the missed sequence's score: none either.
    const std::vector<int> gap_hand = {card("2H"), card("3D"), card("4D"), card("6D"), card("7D"), card("9H"), card("2C")};
    SearchOptions flat = inference_options();
    flat.inference_strength = 0;
    CHECK(mean_likelihood(InferenceModel(t.root, t.history, flat), gap_hand) == 1.0);
    SearchOptions forgiving = inference_options();
    forgiving.inference_margin = 20;  // the sequence scores 1e6, e^13.8
    CHECK(mean_likelihood(InferenceModel(t.root, t.history, forgiving), gap_hand) == 1.0);
}

TEST(inference_a_jack_spent_where_the_plain_card_would_do_is_unlikely) {
    // R5: player 1 completes the sequence of row 5 with a two-eyed jack (JD) on (5,4), whose own
    // card is 2H. Holding 2H then (the jack kept for later would have been free) explains it
    // worse than not holding it.
    const GameState before = four_in_a_row({card("JD"), card("3D"), card("4D"), card("6D"), card("7D"), card("9H"), card("3C")},
                                           {card("AS"), card("KS"), card("QS"), card("TS"), card("9S"), card("8S"), card("7S")});
    const std::vector<MoveId> wild = placements(before, card("JD"), at(5, 4));
    CHECK(wild.size() == 1);
    const OneTurn t = one_turn(before, wild[0]);
    const InferenceModel model(t.root, t.history, inference_options());
    const double plain_held = mean_likelihood(model, {card("2H"), card("3D"), card("4D"), card("6D"), card("7D"), card("9H"), card("2C")});
    const double none = mean_likelihood(model, {card("3C"), card("3D"), card("4D"), card("6D"), card("7D"), card("9H"), card("2C")});
    CHECK(none > 0.9);
    CHECK(plain_held < 0.5 * none);
}

TEST(inference_an_untraded_dead_card_and_a_pass_with_a_playable_card_are_unlikely) {
    // R5 step 1: a dead card (both cells covered) kept through the turn's play.
    Position pos = make_position(2, 2, {{card("AS"), card("KS"), card("QS"), card("TS"), card("9S"), card("8S"), card("7S")},
                                        {card("3D"), card("4D"), card("6D"), card("7D"), card("9H"), card("2C"), card("3C")}});
    const int dead = card("2S");  // cells (0,1) and (8,6)
    pos.board[at(0, 1)] = 0;
    pos.board[at(8, 6)] = 0;
    pos.current_player = 1;
    const GameState before = load(pos);
    const std::vector<MoveId> play = placements(before, card("3D"), at(2, 3));
    CHECK(play.size() == 1);
    const OneTurn t = one_turn(before, play[0]);
    const InferenceModel model(t.root, t.history, inference_options());
    const double kept_dead = mean_likelihood(model, {dead, card("4D"), card("6D"), card("7D"), card("9H"), card("2C"), card("3C")});
    const double no_dead = mean_likelihood(model, {card("5D"), card("4D"), card("6D"), card("7D"), card("9H"), card("2C"), card("3C")});
    CHECK(kept_dead < 0.5 * no_dead);

    // R5: a pass is forced; a hand with a legal play (here 9H) could not have passed.
    const std::vector<int> stuck = {card("2S"), card("3S"), card("4S"), card("5S"), card("6S"), card("7S"), card("8S")};
    Position blocked = make_position(2, 2, {{card("AS"), card("KS"), card("QS"), card("TS"), card("9S"), card("2D"), card("3D")}, stuck});
    int k = 0;
    for (int c : stuck)
        for (int cell : card_cells(c)) blocked.board[cell] = k++ % 2;  // alternating: no line of five
    blocked.current_player = 1;
    const GameState cornered = load(blocked);
    CHECK(moves(cornered).size() >= 1 && contains(moves(cornered), Move::pass().id()));
    const OneTurn passed = one_turn(cornered, Move::pass().id());
    const InferenceModel after_pass(passed.root, passed.history, inference_options());
    CHECK(after_pass.events(1).size() == 1 && after_pass.events(1)[0].kind == InferenceEvent::Kind::Pass);
    CHECK(mean_likelihood(after_pass, stuck) == 1.0);
    CHECK(mean_likelihood(after_pass, {card("2S"), card("3S"), card("4S"), card("5S"), card("6S"), card("7S"), card("9H")}) < 1e-6);
}

TEST(inference_sampled_deals_avoid_the_hands_the_evidence_rules_out) {
    // The gap card 2H of player 1's four (one copy unseen by player 0, who holds the other) shows
    // up in player 1's sampled hand far less often with inference than without.
    const int fives = card("5S");
    const GameState before = four_in_a_row({card("3D"), fives, card("4D"), card("6D"), card("7D"), card("9H"), card("3C")},
                                           {card("2H"), card("KS"), card("QS"), card("TS"), card("9S"), card("8S"), card("7S")});
    const std::vector<MoveId> place = placements(before, fives, at(0, 4));
    CHECK(place.size() == 1);
    const OneTurn t = one_turn(before, place[0]);
    SearchOptions o = inference_options();
    o.inference_strength = 3.0;
    const InferenceModel model(t.root, t.history, o);
    SplitMix64 a(1), b(1);
    int plain = 0, inferred = 0;
    const int n = 4000;
    for (int i = 0; i < n; ++i) {
        const GameState x = determinize(t.root, a);
        const GameState y = model.sample(t.root, b);
        plain += hand_contains(x, 1, card("2H")) || hand_contains(x, 1, card("JD")) || hand_contains(x, 1, card("JC"));
        inferred += hand_contains(y, 1, card("2H")) || hand_contains(y, 1, card("JD")) || hand_contains(y, 1, card("JC"));
        // Every sampled deal is consistent with the observation (the cards conserved, R1; player
        // 0's hand, the board, the sizes as observed).
        check_cards_conserved(y);
        CHECK(std::memcmp(y.hands[0], t.after.hands[0], t.after.hand_count[0]) == 0);
        CHECK(y.hand_count[1] == t.after.hand_count[1] && y.draw_size == t.after.draw_size);
        CHECK(y.chips[0] == t.after.chips[0] && y.chips[1] == t.after.chips[1]);
    }
    // Without inference: 1 - C(82, 7) / C(85, 7) of about 23%; with it, about a third of that
    // (only the card drawn after the play may be one of them).
    CHECK(plain > n / 6);
    CHECK(inferred < plain / 2);
}

TEST(inference_search_reads_no_hidden_card) {
    // R9: two games with the same public history (every move, every board) and different hidden
    // cards: the cards another player holds through the whole game and never plays, swapped with
    // cards deep in the draw pile that nobody draws, and another generator. The public history is
    // byte-identical and the search with inference reports the same statistics; the cheating
    // search sees the difference.
    const int splits[][2] = {{2, 2}, {3, 3}, {4, 2}};
    int twins = 0;
    bool cheater_saw = false, inference_mattered = false;
    for (const auto& split : splits) {
        Config cfg;
        make_config(split[0], split[1], cfg);
        for (std::uint64_t seed = 1; seed <= 4; ++seed) {
            const GameState start = new_game(cfg, seed * 31 + split[0], 0);
            Game game(start);
            SplitMix64 play(seed);
            std::vector<MoveId> moves;
            for (int step = 0; step < 18 && !is_over(game.state()); ++step) {
                const MoveId m = random_legal_move(game.state(), play);
                moves.push_back(m);
                game.play(m);
            }
            if (is_over(game.state())) continue;
            const int me = game.state().current_player;
            bool discarded[kMaxPlayers][kCardKinds] = {};
            for (int i = 0; i < static_cast<int>(game.history_size()); ++i) {
                const Move m = Move::from_id(game.change(i).move);
                if (m.kind != MoveKind::Pass) discarded[game.state_before(i).current_player][m.card] = true;
            }
            GameState twin_start = start;
            int bottom = 0;
            for (int p = 0; p < cfg.players; ++p) {
                if (p == me) continue;
                for (int i = 0; i < twin_start.hand_count[p]; ++i) {
                    const int c = twin_start.hands[p][i];
                    if (discarded[p][c]) continue;
                    while (bottom < 10 && draw_pile_card(twin_start, bottom) == c) ++bottom;
                    if (bottom >= 10) break;
                    twin_start.hands[p][i] = draw_pile_card(twin_start, bottom);
                    set_draw_pile_card(twin_start, bottom++, static_cast<Card>(c));
                }
                std::sort(twin_start.hands[p], twin_start.hands[p] + twin_start.hand_count[p]);
            }
            twin_start.rng ^= 0x9E3779B97F4A7C15ull;
            Game twin(twin_start);
            bool legal = true;
            for (MoveId m : moves) legal = legal && twin.play(m) == MoveError::None;
            if (!legal) continue;  // a pass made illegal by a swapped-in playable card (rare)
            ++twins;
            CHECK(std::memcmp(twin.state().hands, game.state().hands, sizeof game.state().hands) != 0);
            const std::vector<PublicChange> ha = public_history(game, me, 4), hb = public_history(twin, me, 4);
            CHECK(ha.size() == hb.size() && !ha.empty());
            for (std::size_t i = 0; i < std::min(ha.size(), hb.size()); ++i)
                CHECK(std::memcmp(static_cast<const void*>(&ha[i].before), static_cast<const void*>(&hb[i].before),
                                  sizeof(GameState)) == 0 &&
                      ha[i].move == hb[i].move && ha[i].referee == hb[i].referee);
            SearchOptions o = inference_options();
            o.iterations = 1500;
            o.seed = 7;
            const SearchResult a = ismcts(game.state(), o, &ha), b = ismcts(twin.state(), o, &hb);
            CHECK(a.best == b.best && a.nodes == b.nodes && a.moves.size() == b.moves.size());
            for (std::size_t i = 0; i < std::min(a.moves.size(), b.moves.size()); ++i)
                CHECK(a.moves[i].move == b.moves[i].move && a.moves[i].visits == b.moves[i].visits &&
                      a.moves[i].value == b.moves[i].value);
            SearchOptions off = o;
            off.inference = InferenceKind::Off;
            const SearchResult plain = ismcts(game.state(), off, &ha);
            for (std::size_t i = 0; i < std::min(a.moves.size(), plain.moves.size()); ++i)
                inference_mattered |= a.moves[i].visits != plain.moves[i].visits;
            const SearchResult ca = ismcts(game.state(), off, nullptr, Peek::All),
                               cb = ismcts(twin.state(), off, nullptr, Peek::All);
            for (std::size_t i = 0; i < std::min(ca.moves.size(), cb.moves.size()); ++i)
                cheater_saw |= ca.moves[i].visits != cb.moves[i].visits;
        }
    }
    CHECK(twins >= 6);
    CHECK(inference_mattered);
    CHECK(cheater_saw);
}

TEST(inference_history_stops_at_a_referee_call_and_counts_turns) {
    // public_history: as many latest changes as hold `plays` turns of every other player; R10
    // referee calls end it (the hands before one are not reconstructed).
    Config cfg;
    make_config(2, 2, cfg);
    Game game(new_game(cfg, 77, 0));
    SplitMix64 play(3);
    for (int step = 0; step < 12; ++step) game.play(random_legal_move(game.state(), play));
    const int me = game.state().current_player;
    const std::vector<PublicChange> h = public_history(game, me, 3);
    int theirs = 0;
    for (const PublicChange& pc : h)
        theirs += pc.before.current_player != me && Move::from_id(pc.move).kind != MoveKind::Trade;
    CHECK_EQ(theirs, 3);
    CHECK(static_cast<int>(h.size()) <= 8);  // 3 turns each, and trades
    // R10: the last draw (by the player who just moved) goes back; then two more turns.
    CHECK(game.missed_draw(1 - me) == RefereeError::None);
    CHECK(game.play(random_legal_move(game.state(), play)) == MoveError::None);
    CHECK(game.play(random_legal_move(game.state(), play)) == MoveError::None);
    const std::vector<PublicChange> after = public_history(game, game.state().current_player, 30);
    CHECK(after.size() == 3 && after[0].referee && !after[1].referee && !after[2].referee);
    // The model uses the turns after the call only.
    SearchOptions o = inference_options();
    o.inference_plays = 30;
    const InferenceModel model(observe(game.state(), game.state().current_player), after, o);
    CHECK(model.events(1 - game.state().current_player).size() == 1);
}
