"""The Swiss pairing and its standings (sequence_game.tournaments, docs/club.md): the Dutch
system's worked examples from the FIDE Handbook (C.04.3), score groups, no repeats, byes, seats,
and the tie-breaks of C.07 with a published Sonneborn-Berger table."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st
from sequence_game.tournaments import Entrant, Game, allocate_seats, pair_round, pairing_order, standings


def field(n):
    """Entrants "1" .. "n" whose pairing numbers are their names (ratings falling)."""
    return [Entrant(str(k), 2000.0 - k) for k in range(1, n + 1)]


def as_games(round_no, pairs, results):
    return [Game(round_no, a, b, r) for (a, b), r in zip(pairs, results)]


# -- pairing: the FIDE Handbook's examples ---------------------------------------------------------

def test_the_first_round_pairs_top_half_against_bottom_half_with_alternating_seats():
    # C.04.3 articles 3.2 and 5.2.5 (initial colour to pairing number 1, odd numbers of S1 keep it):
    # the Handbook's eight-player first round is 1-5, 6-2, 3-7, 8-4.
    p = pair_round(field(8), [], {})
    assert p.games == (("1", "5"), ("6", "2"), ("3", "7"), ("8", "4"))
    assert p.bye is None


def test_the_second_round_pairs_each_score_group_and_grants_seat_preferences():
    # after the top half won every game: scoregroup 1 is {1, 2, 3, 4}, scoregroup 0 is {5, ... 8};
    # S1 = {1, 2} meets S2 = {3, 4}. 1 and 3 both had the first seat: the higher-ranked (1) gets
    # its preference, the second seat (C.04.3 5.2.4); 2 and 4 both had the second: 2 gets the first.
    r1 = as_games(1, pair_round(field(8), [], {}).games, [1.0, 0.0, 1.0, 0.0])
    p = pair_round(field(8), r1, {})
    assert p.games == (("3", "1"), ("2", "4"), ("5", "7"), ("8", "6"))


def test_transpositions_are_tried_in_the_handbooks_lexicographic_order():
    # C.04.3 article 4.2: S2 = 6 7 8 9 10 is transposed 6 7 8 10 9, 6 7 9 8 10, ... After a first
    # round of five draws (1-6, 2-7, 3-8, 4-9, 5-10) everyone is on 0.5, and the first
    # transposition that repeats no game is 7 6 9 10 8.
    entrants = field(10)
    r1 = [Game(1, str(k), str(k + 5), 0.5) for k in range(1, 6)]
    p = pair_round(entrants, r1, {})
    assert {frozenset(g) for g in p.games} == {frozenset(x) for x in
                                               [("1", "7"), ("2", "6"), ("3", "9"), ("4", "10"), ("5", "8")]}


def test_a_player_that_cannot_be_paired_in_its_group_floats_down():
    # four players; first round: 1 beat 3, 2 beat 4; second: 1 beat 2, 3 beat 4. Scores: 1 has 2,
    # 2 and 3 have 1, 4 has 0. In the third, 1 has met 2 and 3: it floats down to meet 4, and 2
    # meets 3 -- the only pairing with no repeat, which the look-ahead finds from the top.
    games = [Game(1, "1", "3", 1.0), Game(1, "4", "2", 0.0), Game(2, "2", "1", 0.0), Game(2, "3", "4", 1.0)]
    p = pair_round(field(4), games, {})
    assert {frozenset(g) for g in p.games} == {frozenset(("1", "4")), frozenset(("2", "3"))}


def test_the_bye_goes_to_the_lowest_ranked_and_never_twice():
    entrants = field(5)
    p1 = pair_round(entrants, [], {})
    assert p1.bye == "5"
    games = as_games(1, p1.games, [1.0, 1.0])
    p2 = pair_round(entrants, games, {1: "5"})
    assert p2.bye != "5" and p2.bye is not None
    # the bye goes to the lowest-ranked player without one: scores after the first round rank the losers last
    ranked = [s.id for s in standings(entrants, games, {1: "5"})]
    assert p2.bye == [i for i in ranked if i != "5"][-1]


def test_a_forfeit_is_no_meeting_and_no_seat():
    # C.04.1 b: a game forfeited was not played; the two may meet again and no seat is counted
    games = [Game(1, "1", "2", 1.0, forfeit=True)]
    p = pair_round(field(2), games, {})
    assert {frozenset(g) for g in p.games} == {frozenset(("1", "2"))}


def test_no_pairing_left_is_a_clear_error():
    games = [Game(1, "1", "2", 1.0)]
    with pytest.raises(ValueError, match="all met"):
        pair_round(field(2), games, {})


def test_bad_input_is_refused_with_what_would_be_right():
    with pytest.raises(ValueError, match="at least 2"):
        pair_round(field(1), [], {})
    with pytest.raises(ValueError, match="repeat"):
        pair_round([Entrant("a", 1), Entrant("a", 2)], [], {})
    with pytest.raises(ValueError, match=r"1, 0\.5, 0"):
        Game(1, "a", "b", 2.0)
    with pytest.raises(ValueError, match="two different"):
        Game(1, "a", "a")


def test_pairing_numbers_follow_rating_then_id():
    assert pairing_order([Entrant("b", 500), Entrant("a", 500), Entrant("c", 900)]) == ["c", "a", "b"]


def test_seats_alternate_from_the_latest_round_the_two_differed():
    # C.04.3 5.2.3: both want the same seat with the same strength; the latest round in which
    # they had different seats decides: each gets the other seat from that round's
    history = {"a": [0, 1, 0, 1], "b": [1, 0, 0, 1]}
    # both: difference 0, last seat second -> mild preference for the first; in the second game a
    # had the second seat and b the first: a now has the first
    assert allocate_seats("a", "b", history, {"a": 1, "b": 2}) == ("a", "b")
    assert allocate_seats("b", "a", history, {"a": 2, "b": 1}) == ("a", "b")


def test_an_absolute_preference_beats_a_mild_one():
    history = {"a": [0, 1], "b": [0, 0]}  # b had the first seat twice: it must have the second
    assert allocate_seats("a", "b", history, {"a": 1, "b": 2}) == ("a", "b")
    history = {"a": [1, 0], "b": [1, 1]}  # b had the second seat twice: it must have the first
    assert allocate_seats("a", "b", history, {"a": 1, "b": 2}) == ("b", "a")


@st.composite
def tournaments(draw):
    n = draw(st.integers(min_value=2, max_value=13))
    # at most n/2 rounds: then what is left to pair always holds a pairing with no repeat (every
    # player can still meet at least half the field: Dirac's theorem)
    rounds = draw(st.integers(min_value=1, max_value=max(1, n // 2)))
    seed = draw(st.integers(min_value=0, max_value=2**32 - 1))
    return n, rounds, seed


@given(tournaments())
def test_whole_tournaments_never_repeat_a_game_nor_give_a_second_bye(spec):
    n, rounds, seed = spec
    rng = random.Random(seed)
    entrants = [Entrant(f"p{k}", rng.uniform(0, 1000)) for k in range(n)]
    games, byes = [], {}
    for r in range(1, rounds + 1):
        p = pair_round(entrants, games, byes)
        seated = [x for g in p.games for x in g] + ([p.bye] if p.bye else [])
        assert sorted(seated) == sorted(e.id for e in entrants)  # everyone plays once, or has the bye
        assert (p.bye is not None) == (n % 2 == 1)
        if p.bye:
            byes[r] = p.bye
        games += [Game(r, a, b, rng.choice([0.0, 0.5, 1.0])) for a, b in p.games]
    meetings = Counter(frozenset((g.first, g.second)) for g in games)
    assert max(meetings.values()) == 1
    assert max(Counter(byes.values()).values(), default=1) == 1


def test_seats_stay_balanced_over_a_long_tournament():
    # C.04.3's colour rules: nobody has the same seat three times in a row, and the
    # difference stays within 2, in a field of 20 over 9 rounds of random results
    rng = random.Random(7)
    entrants = [Entrant(f"p{k}", rng.uniform(0, 1000)) for k in range(20)]
    games = []
    for r in range(1, 10):
        p = pair_round(entrants, games, {})
        games += [Game(r, a, b, rng.choice([0.0, 0.5, 1.0])) for a, b in p.games]
    for e in entrants:
        seats = [0 if g.first == e.id else 1 for g in sorted(games, key=lambda g: g.round) if e.id in (g.first, g.second)]
        assert abs(seats.count(0) - seats.count(1)) <= 2, (e.id, seats)


def test_score_groups_meet_within_themselves_first():
    # 8 players, the second round after four decisive games: the four winners meet each other
    r1 = as_games(1, pair_round(field(8), [], {}).games, [1.0, 1.0, 0.0, 0.0])
    winners = {g.first if g.result == 1.0 else g.second for g in r1}
    p = pair_round(field(8), r1, {})
    for a, b in p.games:
        assert (a in winners) == (b in winners)


# -- standings -------------------------------------------------------------------------------------

def test_sonneborn_berger_matches_the_published_double_round_robin():
    # Sensei's Library, "Sonneborn-Berger": A, B, C, D play each other twice; A and B score 4,
    # C 3, D 1; A beat B, C, C, D (4 + 3 + 3 + 1 = 11), B beat C, D, A, D (9), C beat D, B, D
    # (6), D beat A (4). A wins the tie with B on Sonneborn-Berger.
    entrants = [Entrant(x, 500.0) for x in "ABCD"]
    # six rounds of two games: (A-B, C-D), (A-C, B-D), (A-D, B-C), twice; the winner first
    wins = [(1, "A", "B"), (1, "C", "D"), (2, "A", "C"), (2, "B", "D"), (3, "A", "D"), (3, "B", "C"),
            (4, "B", "A"), (4, "C", "D"), (5, "A", "C"), (5, "B", "D"), (6, "D", "A"), (6, "C", "B")]
    games = [Game(r, winner, loser, 1.0) for r, winner, loser in wins]
    table = {s.id: s for s in standings(entrants, games, {})}
    assert [table[x].points for x in "ABCD"] == [4, 4, 3, 1]
    assert [table[x].sonneborn_berger for x in "ABCD"] == [11, 9, 6, 4]
    assert table["A"].buchholz == table["B"].buchholz == 2 * (4 + 3 + 1)
    assert table["A"].rank == 1 and table["B"].rank == 2


def test_a_bye_counts_as_a_dummy_opponent_with_the_own_score_in_buchholz():
    entrants = field(3)
    games = [Game(1, "1", "2", 1.0), Game(2, "3", "1", 0.0), Game(3, "2", "3", 1.0)]
    byes = {1: "3", 2: "2", 3: "1"}
    table = {s.id: s for s in standings(entrants, games, byes)}
    # 1: two wins and a bye = 3; 2: a win and a bye = 2; 3: a bye = 1
    assert [table[x].points for x in "123"] == [3, 2, 1]
    # 1 met 2 (2) and 3 (1), plus itself (3) for the bye
    assert table["1"].buchholz == 2 + 1 + 3
    assert table["1"].sonneborn_berger == 2 + 1
    assert table["3"].byes == 1 and table["3"].games == 2


def test_the_direct_encounter_separates_players_tied_on_everything_else():
    # a and b: the same points, Buchholz and Sonneborn-Berger; b won their game, so b is ahead
    # although a has the better pairing number
    entrants = [Entrant("a", 900.0), Entrant("b", 800.0), Entrant("c", 700.0), Entrant("d", 600.0)]
    games = [Game(1, "a", "b", 0.0), Game(1, "c", "d", 0.5),
             Game(2, "a", "c", 1.0), Game(2, "b", "d", 0.0),
             Game(3, "a", "d", 0.5), Game(3, "b", "c", 0.5)]
    table = {s.id: s for s in standings(entrants, games, {})}
    assert (table["a"].points, table["a"].buchholz, table["a"].sonneborn_berger) == \
        (table["b"].points, table["b"].buchholz, table["b"].sonneborn_berger)
    assert table["b"].direct == 1.0 and table["a"].direct == 0.0
    assert table["b"].rank < table["a"].rank


def test_games_in_progress_count_for_nothing_yet():
    entrants = field(2)
    table = standings(entrants, [Game(1, "1", "2")], {})
    assert [(s.points, s.games) for s in table] == [(0, 0), (0, 0)]
