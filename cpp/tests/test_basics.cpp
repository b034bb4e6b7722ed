// Cards, board tables, bitboards, the generator (docs/rng.md test vectors), move ids and the deal.
#include <algorithm>
#include <cstring>

#include "helpers.hpp"
#include "sequence/rng.hpp"
#include "test.hpp"

using namespace sequence;
using namespace test;

TEST(rng_splitmix64_test_vectors) {
    SplitMix64 r(0);
    CHECK(r.next() == 0xe220a8397b1dcdafull);
    CHECK(r.next() == 0x6e789e6aa1b965f4ull);
    CHECK(r.next() == 0x06c45d188009454full);
}

TEST(rng_below_is_in_range_and_shuffle_permutes) {
    SplitMix64 r(12345);
    for (std::uint32_t n : {1u, 2u, 3u, 7u, 104u, 0xFFFFFFFFu})
        for (int i = 0; i < 1000; ++i) CHECK(r.below(n) < n);
    int a[104];
    for (int i = 0; i < 104; ++i) a[i] = i;
    shuffle(a, 104, r);
    std::sort(a, a + 104);
    for (int i = 0; i < 104; ++i) CHECK_EQ(a[i], i);
}

// Expected values from an independent transcription of docs/rng.md in Python.
TEST(r4_deal_matches_the_spec) {
    struct Case {
        int players, seed, dealer;
        std::vector<std::vector<int>> hands;
        std::vector<int> pile_top;
        std::uint64_t rng;
    };
    const Case cases[] = {
        {2, 0, 1, {{4, 5, 30, 32, 32, 33, 42}, {18, 19, 22, 28, 35, 38, 42}}, {47, 14, 34, 17, 44}, 0xf8f5ece6a4e7c559ull},
        {3, 1, 0, {{0, 23, 28, 36, 41, 48}, {6, 20, 32, 33, 36, 46}, {0, 6, 12, 19, 24, 43}}, {19, 26, 25, 9, 22}, 0xf8f5ece6a4e7c55aull},
        {4, 42, 3, {{3, 14, 15, 20, 28, 47}, {2, 3, 16, 21, 42, 49}, {9, 10, 12, 32, 35, 37}, {2, 6, 31, 39, 43, 45}},
         {14, 9, 51, 0, 34}, 0xf8f5ece6a4e7c583ull},
        {12, 7, 5, {{18, 20, 47}, {15, 35, 38}, {20, 29, 42}, {3, 22, 24}, {8, 28, 36}, {2, 6, 46}, {1, 7, 23},
                    {5, 39, 48}, {12, 26, 32}, {36, 44, 51}, {10, 25, 30}, {7, 9, 33}},
         {41, 0, 49, 10, 3}, 0xa147e688dbdfb1d3ull},
    };
    for (const Case& c : cases) {
        Config cfg;
        CHECK(make_config(c.players, default_teams(c.players), cfg));
        const Position pos = to_position(new_game(cfg, c.seed, 0));
        CHECK_EQ(pos.dealer, c.dealer);
        CHECK_EQ(pos.current_player, (c.dealer + 1) % c.players);
        CHECK(pos.hands == c.hands);
        CHECK(std::vector<int>(pos.draw_pile.begin(), pos.draw_pile.begin() + 5) == c.pile_top);
        CHECK(pos.rng == c.rng);
        CHECK(pos.seed == std::optional<std::uint64_t>(c.seed));
        CHECK_EQ(int(pos.draw_pile.size()), kDeckSize - c.players * cfg.hand_size);
    }
}

TEST(r2_r3_configs) {
    Config cfg;
    for (int players : {2, 3, 4, 6, 8, 9, 10, 12}) CHECK(make_config(players, default_teams(players), cfg));
    for (int players : {0, 1, 5, 7, 11, 13}) CHECK(!make_config(players, 2, cfg));
    CHECK(make_config(6, 3, cfg) && cfg.hand_size == 5 && cfg.sequences_to_win == 1);
    CHECK(make_config(12, 3, cfg) && cfg.hand_size == 3);
    CHECK(!make_config(4, 3, cfg));
    CHECK(!make_config(9, 2, cfg));
    CHECK(!make_config(3, 2, cfg));
    CHECK(make_config(2, 2, cfg) && cfg.hand_size == 7 && cfg.sequences_to_win == 2);
}

TEST(cards_parse_and_format) {
    CHECK_EQ(parse_card("2S"), 0);
    CHECK_EQ(parse_card("JS"), 36);
    CHECK_EQ(parse_card("jh"), 37);
    CHECK_EQ(parse_card("JD"), 38);
    CHECK_EQ(parse_card("JC"), 39);
    CHECK_EQ(parse_card("AC"), 51);
    CHECK_EQ(parse_card("10d"), parse_card("TD"));
    CHECK_EQ(parse_card("1D"), -1);
    CHECK_EQ(parse_card("XX"), -1);
    CHECK_EQ(parse_card(""), -1);
    CHECK_EQ(parse_card("10"), -1);
    for (int c = 0; c < kCardKinds; ++c) CHECK_EQ(parse_card(format_card(c)), c);
    CHECK(is_two_eyed_jack(card("JD")) && is_one_eyed_jack(card("JH")) && !is_normal_card(card("JS")));
}

TEST(r1_board_tables) {
    int seen[kCardKinds] = {};
    for (int cell = 0; cell < kCells; ++cell)
        if (card_at(cell) != kCorner) ++seen[card_at(cell)];
    for (int c = 0; c < kCardKinds; ++c) {
        CHECK_EQ(seen[c], is_jack(c) ? 0 : 2);
        if (!is_jack(c)) {
            CHECK(cell_of(c, 0) < cell_of(c, 1));
            CHECK_EQ(card_at(cell_of(c, 0)), c);
            CHECK_EQ(card_at(cell_of(c, 1)), c);
            CHECK_EQ(card_cells(c).count(), 2);
        }
    }
    CHECK_EQ(corners().count(), 4);
    CHECK(is_corner(0) && is_corner(9) && is_corner(90) && is_corner(99));
    CHECK_EQ(card_at(at(5, 3)), card("7H"));
    CHECK_EQ(card_at(at(9, 8)), card("6D"));
    // Windows are ordered like their sorted cell tuples, and each cell lies in its windows.
    for (int w = 1; w < kWindowCount; ++w) {
        std::vector<int> a, b;
        for (int k = 0; k < kWindowLength; ++k) a.push_back(window_cell(w - 1, k)), b.push_back(window_cell(w, k));
        CHECK(a < b);
    }
    for (int cell = 0; cell < kCells; ++cell)
        for (int d = 0; d < kDirections; ++d)
            for (int k = 0; k < kWindowLength; ++k) {
                const int w = window_at(cell, d, k);
                if (w == kNoWindow) continue;
                CHECK_EQ(window_cell(w, k), cell);
                CHECK_EQ(window_cell(w, 0), cell - k * kDirectionStep[d]);
                int cells[5];
                for (int i = 0; i < 5; ++i) cells[i] = window_cell(w, i);
                CHECK_EQ(find_window(cells), w);
            }
    const int not_line[5] = {8, 9, 10, 11, 12};  // wraps around a row end
    CHECK_EQ(find_window(not_line), -1);
}

TEST(bitboard_operations) {
    Bitboard b;
    for (int cell : {0, 5, 63, 64, 99}) b.set(cell);
    CHECK_EQ(b.count(), 5);
    std::vector<int> cells;
    for (int cell : b) cells.push_back(cell);
    CHECK((cells == std::vector<int>{0, 5, 63, 64, 99}));
    for (int i = 0; i < 5; ++i) CHECK_EQ(b.select(i), cells[i]);
    CHECK_EQ((~b).count(), 95);
    CHECK_EQ(Bitboard::all().count(), 100);
    b.reset(63);
    CHECK(!b.test(63) && b.test(64));
    CHECK(b.subset_of(Bitboard::all()));
}

TEST(move_ids_follow_notation) {
    // docs/notation.md: bits 0-1 kind, 2-7 card, 8-14 cell, 15-26 declares (E, S, SE, SW).
    CHECK_EQ(Move::pass().id(), 3u);
    CHECK_EQ(Move::trade(5).id(), 0u | 5u << 2);
    const Move m = Move::place(card("7H"), at(5, 3), with_declare(0, kSouth, kDeclarePair));
    CHECK_EQ(m.id(), 1u | 21u << 2 | 53u << 8 | 6u << 18);
    CHECK(Move::from_id(m.id()) == m);
    CHECK_EQ(Move::from_id(m.id()).declare(kSouth), kDeclarePair);
}

// GameState's shared card array: the draw pile grows up from cards[0], the discard log down from
// the other end, with owner nibbles; the accessors read back what was written, over the whole deck.
TEST(state_draw_pile_and_discard_log_share_the_card_array) {
    SplitMix64 r(77);
    for (int discards = 0; discards <= kDeckSize; discards += 13) {
        GameState s;
        std::memset(static_cast<void*>(&s), 0xA5, sizeof s);  // stale bytes everywhere
        s.draw_size = 0;
        s.discard_size = 0;
        const int draws = kDeckSize - discards;
        Card pile[kDeckSize], log[kDeckSize];
        int owner[kDeckSize];
        for (int i = 0; i < draws; ++i) {
            pile[i] = static_cast<Card>(r.below(kCardKinds));
            set_draw_pile_card(s, s.draw_size++, pile[i]);
        }
        for (int i = 0; i < discards; ++i) {
            log[i] = static_cast<Card>(r.below(kCardKinds));
            owner[i] = static_cast<int>(r.below(kMaxPlayers));
            push_discard(s, log[i], owner[i]);
        }
        CHECK_EQ(int(s.draw_size) + int(s.discard_size), kDeckSize);
        std::uint8_t owners[kDeckSize];
        discard_owners(s, owners);
        for (int i = 0; i < draws; ++i) CHECK_EQ(int(draw_pile_card(s, i)), int(pile[i]));
        for (int i = 0; i < discards; ++i) {
            CHECK_EQ(int(discard_card(s, i)), int(log[i]));
            CHECK_EQ(int(s.cards[kDeckSize - 1 - i]), int(log[i]));
            CHECK_EQ(discard_owner(s, i), owner[i]);
            CHECK_EQ(int(owners[i]), owner[i]);
        }
    }
}
