"""R2 players and teams, R3 hand sizes, R4 dealer and deal, and docs/rng.md (seeded randomness)."""

import importlib

import pytest
from helpers import CONFIGS, DEFAULT_TEAMS, HAND_SIZE, VALID_PLAYERS, SplitMix64, model_deal


@pytest.mark.parametrize("players, teams", CONFIGS)
def test_r2_r3_every_valid_config_deals_correctly(Game, players, teams):
    g = Game(players=players, teams=teams, seed=11)
    assert (g.players, g.teams) == (players, teams)
    assert [g.team_of(p) for p in range(players)] == [p % teams for p in range(players)]  # R2 seating
    assert [len(g.hand(p)) for p in range(players)] == [HAND_SIZE[players]] * players  # R3
    assert g.draw_pile_size == 104 - players * HAND_SIZE[players]
    assert all(g.discards(p) == [] for p in range(players))
    assert (g.turn, g.passes, g.traded_this_turn) == (0, 0, False)
    assert not g.is_over and g.winner is None and not g.is_draw
    assert g.sequences == []


@pytest.mark.parametrize("players", VALID_PLAYERS)
def test_r2_default_team_split(Game, players):
    g = Game(players=players, seed=1)
    assert g.teams == DEFAULT_TEAMS[players]
    assert Game(players=players, teams=None, seed=1).teams == DEFAULT_TEAMS[players]


@pytest.mark.parametrize("players", [2, 3])
def test_r2_two_or_three_players_play_individually(Game, players):
    g = Game(players=players, seed=1)
    assert g.teams == players and len({g.team_of(p) for p in range(players)}) == players


@pytest.mark.parametrize("players", [0, 1, 5, 7, 11, 13, 14, 24, -2])
def test_r2_invalid_player_count_is_refused_naming_valid_choices(Game, players):
    with pytest.raises(ValueError) as e:
        Game(players=players, seed=1)
    assert "2, 3, 4, 6, 8, 9, 10, 12" in str(e.value) and str(players) in str(e.value)


@pytest.mark.parametrize(
    "players, teams, hint",
    [(2, 3, "teams=2"), (3, 2, "teams=3"), (4, 3, "teams=2"), (4, 4, "teams=2"), (6, 6, "teams=2 or teams=3"),
     (6, 1, "teams=2 or teams=3"), (8, 4, "teams=2"), (9, 2, "teams=3"), (10, 5, "teams=2"),
     (12, 4, "teams=2 or teams=3"), (12, 6, "teams=2 or teams=3"), (4, 0, "teams=2")],
)
def test_r2_invalid_team_split_is_refused_naming_valid_choices(Game, players, teams, hint):
    with pytest.raises(ValueError) as e:
        Game(players=players, teams=teams, seed=1)
    assert hint in str(e.value)


@pytest.mark.parametrize("kwargs", [{"players": "2"}, {"players": 2.0}, {"players": True}, {"players": None},
                                    {"players": 4, "teams": "2"}, {"players": 4, "teams": 2.0}])
def test_r2_wrong_types_are_type_errors(Game, kwargs):
    with pytest.raises(TypeError):
        Game(seed=1, **kwargs)


@pytest.mark.parametrize("players", VALID_PLAYERS)
def test_r4_first_player_is_left_of_dealer(Game, players):
    for seed in range(4):
        g = Game(players=players, seed=seed)
        assert 0 <= g.dealer < players
        assert g.current_player == (g.dealer + 1) % players


@pytest.mark.parametrize("players, teams", CONFIGS)
@pytest.mark.parametrize("seed", [0, 1, 2**64 - 1, 123456789])
def test_r4_deal_follows_docs_rng(Game, players, teams, seed):
    """The cut, the dealer, the deal order and the draw pile, exactly as docs/rng.md specifies
    (checked against an independent model of the spec in tests/helpers.py)."""
    g = Game(players=players, teams=teams, seed=seed)
    want = model_deal(players, seed)
    d = g.to_dict()
    assert d["dealer"] == want["dealer"] == g.dealer
    assert d["current_player"] == want["current_player"]
    assert d["hands"] == want["hands"]
    assert d["draw_pile"] == want["draw_pile"]
    assert d["rng"] == want["rng"]
    assert d["seed"] == seed == g.seed


def test_r4_the_cut_picks_different_dealers_across_seeds(Game):
    # the dealer depends on the cut: over a few seeds every seat of a 3-player game deals at least once
    dealers = {Game(players=3, seed=s).dealer for s in range(40)}
    assert dealers == {0, 1, 2}


def test_r4_same_seed_same_game(Game):
    a, b = Game(players=4, seed=99), Game(players=4, seed=99)
    assert a.to_dict() == b.to_dict()
    for _ in range(10):
        m = a.legal_moves()[len(a.legal_moves()) // 2]
        a.play(m)
        b.play(m)
        assert a.to_dict() == b.to_dict()
    assert Game(players=4, seed=98).to_dict() != Game(players=4, seed=99).to_dict()


def test_r4_seed_none_draws_a_seed_that_reproduces_the_game(Game):
    g = Game(players=2)
    assert isinstance(g.seed, int) and 0 <= g.seed < 2**64
    assert Game(players=2, seed=g.seed).to_dict() == g.to_dict()


def test_r4_max_turns_does_not_change_the_deal(Game):
    a, b = Game(players=2, seed=5), Game(players=2, seed=5, max_turns=10)
    da, db = a.to_dict(), b.to_dict()
    assert db.pop("max_turns") == 10 and da.pop("max_turns") is None
    assert da == db


@pytest.mark.parametrize("seed, exc", [(-1, ValueError), (2**64, ValueError), ("7", TypeError), (1.5, TypeError),
                                       (True, TypeError)])
def test_rng_invalid_seed_is_refused(Game, seed, exc):
    with pytest.raises(exc) as e:
        Game(players=2, seed=seed)
    assert "seed" in str(e.value)


def test_rng_test_vectors_of_the_spec():
    g = SplitMix64(0)
    assert [g.next() for _ in range(3)] == [0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4, 0x06C45D188009454F]


def _reference_rng():
    try:
        return importlib.import_module("sequence_game.reference.rng")
    except ImportError:
        pytest.skip("sequence_game.reference.rng is not there")


def test_rng_reference_generator_test_vectors():
    rng = _reference_rng()
    g = rng.SplitMix64(0)
    assert [g.next() for _ in range(3)] == [0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4, 0x06C45D188009454F]


@pytest.mark.parametrize("seed", [0, 1, 42, 2**63 + 5])
def test_rng_reference_below_and_shuffle_match_the_spec(seed):
    rng = _reference_rng()
    ours, theirs = SplitMix64(seed), rng.SplitMix64(seed)
    for n in (1, 2, 3, 7, 104, 2**31 + 11, 2**32 - 1):
        assert [theirs.below(n) for _ in range(20)] == [ours.below(n) for _ in range(20)]
    a, b = list(range(104)), list(range(104))
    ours.shuffle(a)
    theirs.shuffle(b)
    assert a == b and sorted(a) == list(range(104))
    assert theirs.state == ours.s


def test_rng_below_rejection_path_is_exercised():
    # below(n) with n close to 2**32 must still be in range and reproducible
    g = SplitMix64(7)
    vals = [g.below(2**32 - 1) for _ in range(1000)]
    assert all(0 <= v < 2**32 - 1 for v in vals)


# R3, written out from docs/rules.md rather than imported, so a wrong table in the package fails here.
R3_TABLE = {2: 7, 3: 6, 4: 6, 6: 5, 8: 4, 9: 4, 10: 3, 12: 3}


@pytest.mark.parametrize("players, cards", sorted(R3_TABLE.items()))
def test_r3_hand_size_table(Game, players, cards):
    g = Game(players=players, seed=3)
    assert [len(g.hand(p)) for p in range(players)] == [cards] * players
    assert g.draw_pile_size == 104 - players * cards
