#include "sequence/rules.hpp"

#include <algorithm>
#include <cassert>
#include <cstring>

#include "sequence/rng.hpp"
#include "sequence/window_lanes.hpp"
#include "turn.hpp"

namespace sequence {
inline namespace SEQUENCE_ISA {

const char* describe(MoveError e) {
    switch (e) {
        case MoveError::None: return "legal";
        case MoveError::GameOver: return "the game is over: no move is legal";
        case MoveError::Malformed: return "not a well-formed move id";
        case MoveError::CardNotInHand: return "the card is not in the current player's hand";
        case MoveError::WrongCardForKind: return "this card cannot make this kind of move (R5)";
        case MoveError::AlreadyTraded: return "a dead card was already traded this turn (R5)";
        case MoveError::NotDeadCard: return "the card is not dead: one of its cells is empty (R5)";
        case MoveError::CornerCell: return "corners never take or lose a chip (R5)";
        case MoveError::CellNotOnCard: return "the card is not printed on that cell (R5)";
        case MoveError::CellOccupied: return "the cell is not empty (R5)";
        case MoveError::NoChipToRemove: return "there is no chip on that cell to remove (R5)";
        case MoveError::OwnChip: return "a one-eyed jack removes another team's chip, not your own (R5)";
        case MoveError::LockedChip: return "the chip is part of a completed sequence (R7)";
        case MoveError::WrongDeclares: return "the declared sequences are not a maximal legal choice (R7)";
        case MoveError::PlayAvailable: return "a pass is only legal without any legal play (R5)";
    }
    return "unknown error";
}

const char* describe(RefereeError e) {
    switch (e) {
        case RefereeError::None: return "accepted";
        case RefereeError::GameOver: return "the game is over: referee calls are refused";
        case RefereeError::BadTeam: return "no such team";
        case RefereeError::BadPlayer: return "no such player";
        case RefereeError::NotTeamMember: return "a card was named for a player outside the team";
        case RefereeError::MissingCard: return "every member of the team must name one card (R10)";
        case RefereeError::CardNotInHand: return "a named card is not in that player's hand";
        case RefereeError::NoLastDraw: return "there is no end-of-turn draw to take back (R10)";
        case RefereeError::NotLastDrawPlayer: return "the last draw was made by another player (R10)";
    }
    return "unknown error";
}

namespace {

// Cells a card may take a chip on (R5): its own empty cells, any empty cell for a two-eyed jack.
Bitboard placement_cells(int card, Bitboard empty) {
    return is_two_eyed_jack(card) ? empty : card_cells(card) & empty;
}

// True if the current player has a placement or removal (pass is then illegal, R5).
bool has_play(const GameState& s) {
    const int p = s.current_player;
    const Bitboard empty = empty_cells(s);
    const Bitboard removable = removable_cells(s, team_of(s, p));
    for (int i = 0; i < s.hand_count[p]; ++i) {
        const int card = s.hands[p][i];
        if ((is_one_eyed_jack(card) ? removable : placement_cells(card, empty)).any()) return true;
    }
    return false;
}

// Sort key of a declares choice: its windows ascending, one byte each, most significant first.
// All choices for one placement declare the same number of windows, so comparing keys compares
// the declared tuples as docs/notation.md orders them.
std::uint64_t declares_key(int cell, int declares) {
    std::uint8_t windows[2 * kDirections];
    const int n = declared_windows(cell, declares, windows);
    std::uint64_t key = 0;
    for (int i = 0; i < n; ++i) key = key << 8 | windows[i];
    return key;
}

// The several declares choices of one placement (R7), sorted as docs/notation.md orders them.
template <class Sink>
SEQUENCE_NOINLINE void push_placement_choices(int card, int cell, const DeclareOptions& opt, int combos, Sink& out) {
    // At most 4 choices per direction: a fifth would need both end windows, which form the pair.
    constexpr int kMaxChoices = 4 * 4 * 4 * 4;
    std::pair<std::uint64_t, int> choices[kMaxChoices];
    for (int k = 0; k < combos; ++k) {
        int declares = 0;
        for (int d = 0, rest = k; d < kDirections; rest /= opt.count[d], ++d)
            declares = with_declare(declares, d, opt.codes[d][rest % opt.count[d]]);
        choices[k] = {declares_key(cell, declares), declares};
    }
    std::sort(choices, choices + combos);
    for (int k = 0; k < combos; ++k) out.push(Move::place(card, cell, choices[k].second).id());
}

// Lists the placements of card on cell with every declares choice, in declares order.
template <class Sink>
void push_placements(const GameState& s, int team, int card, int cell, Sink& out) {
    DeclareOptions opt;
    declare_options(s, team, cell, opt);
    int combos = 1;
    for (int d = 0; d < kDirections; ++d) combos *= opt.count[d];
    if (combos == 1) {
        int declares = 0;
        for (int d = 0; d < kDirections; ++d) declares = with_declare(declares, d, opt.codes[d][0]);
        out.push(Move::place(card, cell, declares).id());
        return;
    }
    push_placement_choices(card, cell, opt, combos, out);
}

struct VectorSink {
    std::vector<MoveId>& v;
    void push(MoveId m) { v.push_back(m); }
};

// Appends base | cell << 8 for every cell, ascending (cell is the id's bits 8-14).
inline void push_cells(MoveList& out, MoveId base, Bitboard cells) {
    const int n = cells.count();
    if (out.size + n > kMoveListCapacity) {
        for (int cell : cells) out.push(base | MoveId(cell) << 8);
        return;
    }
    MoveId* p = out.moves + out.size;
    out.size += n;
    for (std::uint64_t lo = cells.lo(); lo; lo &= lo - 1) *p++ = base | MoveId(detail::lsb64(lo)) << 8;
    for (std::uint64_t hi = cells.hi(); hi; hi &= hi - 1) *p++ = base | MoveId(64 + detail::lsb64(hi)) << 8;
}
inline void push_cells(VectorSink& out, MoveId base, Bitboard cells) {
    out.v.reserve(out.v.size() + cells.count());
    for (int cell : cells) out.push(base | MoveId(cell) << 8);
}

template <class Sink>
void generate(const GameState& s, Sink& out) {
    if (is_over(s)) return;
    const int p = s.current_player;
    const int team = team_of(s, p);
    const Card* hand = s.hands[p];
    const int n = s.hand_count[p];
    const Bitboard occ = occupied(s);
    const Bitboard empty = ~(occ | corners());
    // Each card id once, even with both copies in hand (docs/notation.md); the hand is ascending.
    Card cards[kMaxHand];
    int k = 0;
    for (int i = 0; i < n; ++i) {
        cards[k] = hand[i];
        k += i == 0 || hand[i - 1] != hand[i];
    }

    if (!s.traded_this_turn)  // R5 step 1
        for (int i = 0; i < k; ++i)
            if (is_normal_card(cards[i]) && card_cells(cards[i]).subset_of(occ)) out.push(Move::trade(cards[i]).id());

    bool any_play = false;
    Bitboard completions;
    bool completions_known = false;
    for (int i = 0; i < k; ++i) {  // R5 step 2: placements
        const int card = cards[i];
        if (is_one_eyed_jack(card)) continue;
        const Bitboard where = placement_cells(card, empty);
        if (where.none()) continue;
        any_play = true;
        if (!completions_known) {  // R7: only these cells can declare sequences
            completions = completion_cells(s, team);
            completions_known = true;
        }
        const MoveId base = Move::place(card, 0).id();
        if ((where & completions).none()) {
            push_cells(out, base, where);
            continue;
        }
        for (int cell : where) {
            if (completions.test(cell)) push_placements(s, team, card, cell, out);
            else out.push(base | MoveId(cell) << 8);
        }
    }
    const Bitboard removable = removable_cells(s, team);
    if (removable.any())
        for (int i = 0; i < k; ++i) {  // R5 step 2: removals
            if (!is_one_eyed_jack(cards[i])) continue;
            any_play = true;
            push_cells(out, Move::remove(cards[i], 0).id(), removable);
        }
    if (!any_play) out.push(Move::pass().id());
}

MoveError check_placement(const GameState& s, const Move& m) {
    if (is_one_eyed_jack(m.card)) return MoveError::WrongCardForKind;
    if (!hand_contains(s, s.current_player, m.card)) return MoveError::CardNotInHand;
    if (is_corner(m.cell)) return MoveError::CornerCell;
    if (occupied(s).test(m.cell)) return MoveError::CellOccupied;
    if (!is_two_eyed_jack(m.card) && !card_cells(m.card).test(m.cell)) return MoveError::CellNotOnCard;
    DeclareOptions opt;
    declare_options(s, team_of(s, s.current_player), m.cell, opt);
    for (int d = 0; d < kDirections; ++d) {
        const std::uint8_t* codes = opt.codes[d];
        if (std::find(codes, codes + opt.count[d], m.declare(d)) == codes + opt.count[d])
            return MoveError::WrongDeclares;
    }
    return MoveError::None;
}

MoveError check_removal(const GameState& s, const Move& m) {
    if (!is_one_eyed_jack(m.card)) return MoveError::WrongCardForKind;
    if (!hand_contains(s, s.current_player, m.card)) return MoveError::CardNotInHand;
    if (is_corner(m.cell)) return MoveError::CornerCell;
    if (!occupied(s).test(m.cell)) return MoveError::NoChipToRemove;
    if (s.chips[team_of(s, s.current_player)].test(m.cell)) return MoveError::OwnChip;
    if (s.locked.test(m.cell)) return MoveError::LockedChip;
    return MoveError::None;
}

MoveError check_trade(const GameState& s, const Move& m) {
    if (!is_normal_card(m.card)) return MoveError::WrongCardForKind;
    if (s.traded_this_turn) return MoveError::AlreadyTraded;
    if (!hand_contains(s, s.current_player, m.card)) return MoveError::CardNotInHand;
    if (!is_dead_card(s, m.card)) return MoveError::NotDeadCard;
    return MoveError::None;
}

}  // namespace

Bitboard completion_cells(const GameState& s, int team) {
    // Bit-parallel over all windows (window_lanes.hpp): the windows holding exactly four cells of
    // the team's chips and corners; each one's missing cell, shifted back from the window start.
    WindowLanes own[kWindowLength];
    window_cells(s.chips[team] | corners(), own);
    const WindowLanes four = kWindowStarts & count_window_cells(own).equal(4);
    Bitboard gaps;
    for (int i = 0; i < kWindowLength; ++i) gaps |= window_cell_board(four & ~own[i], i);
    return gaps & ~occupied(s);
}

int declared_windows(int cell, int declares, std::uint8_t out[2 * kDirections]) {
    int n = 0;
    for (int d = 0; d < kDirections; ++d) {
        const int v = (declares >> (kDeclareBits * d)) & 7;
        assert(v == kDeclareNone || (v == kDeclarePair ? window_at(cell, d, 0) != kNoWindow &&
                                                             window_at(cell, d, kWindowLength - 1) != kNoWindow
                                                       : v <= kWindowLength && window_at(cell, d, v - 1) != kNoWindow));
        if (v == kDeclarePair) {
            out[n++] = static_cast<std::uint8_t>(window_at(cell, d, kWindowLength - 1));
            out[n++] = static_cast<std::uint8_t>(window_at(cell, d, 0));
        } else if (v != kDeclareNone) {
            out[n++] = static_cast<std::uint8_t>(window_at(cell, d, v - 1));
        }
    }
    for (int i = 1; i < n; ++i)  // insertion sort: n <= 8, usually 1
        for (int j = i; j > 0 && out[j - 1] > out[j]; --j) std::swap(out[j - 1], out[j]);
    return n;
}

void declare_options(const GameState& s, int team, int cell, DeclareOptions& out) {
    const Bitboard own = s.chips[team] | corners() | Bitboard::of(cell);
    std::uint32_t full = 0;
    for (int d = 0; d < kDirections; ++d) {
        if ((segment(cell, d) & own).count() < kWindowLength) continue;
        for (int k = 0; k < kWindowLength; ++k) {
            const int w = window_at(cell, d, k);
            if (w != kNoWindow && window_mask(w).subset_of(own)) full |= 1u << (kWindowLength * d + k);
        }
    }
    declare_options_from(s, team, cell, full, out);
}

void declare_options_from(const GameState& s, int team, int cell, std::uint32_t full, DeclareOptions& out) {
    // R7: a candidate is a full window that shares at most one cell with each of the team's
    // sequences (usually none or one: a short loop over the few full windows).
    std::uint32_t candidates = full;
    for (int i = 0; i < s.sequence_count && candidates != 0; ++i) {
        if (s.sequences[i].team != team) continue;
        const Bitboard sequence = window_mask(s.sequences[i].window);
        for (std::uint32_t rest = candidates; rest != 0; rest &= rest - 1) {
            const int bit = bits::ctz32(rest);
            const int w = window_at(cell, bit / kWindowLength, bit % kWindowLength);
            if ((window_mask(w) & sequence).count() > 1) candidates &= ~(1u << bit);
        }
    }
    for (int d = 0; d < kDirections; ++d) {
        const std::uint32_t lines = candidates >> (kWindowLength * d) & 0x1F;  // bit k: window_at(cell, d, k)
        out.count[d] = 1;
        if (lines == 0) {  // the usual answer: no line of five in this direction
            out.codes[d][0] = kDeclareNone;
        } else if ((lines & 0x11) == 0x11) {
            // 9 in a row through the middle: the two end windows share only the placed cell, so
            // declaring both is the one maximal choice.
            out.codes[d][0] = kDeclarePair;
        } else {
            // 5 to 8 in a row: the player picks which five (codes k + 1, ascending).
            out.count[d] = 0;
            for (std::uint32_t rest = lines; rest != 0; rest &= rest - 1)
                out.codes[d][out.count[d]++] = static_cast<std::uint8_t>(bits::ctz32(rest) + 1);
        }
    }
}

namespace turn {

// R6: the discard piles, gathered in seat order each oldest first, shuffled into the draw pile.
SEQUENCE_NOINLINE SEQUENCE_COLD void reshuffle(GameState& s) {
    // Gathered into a buffer first: the new draw pile may overwrite cards the discard log used.
    std::uint8_t owner[kDeckSize];
    discard_owners(s, owner);
    // Each card is written and kept only if it is the seat's: whose card comes next is random, a
    // branch on it would mispredict about every other card. (A slot past the deck: a card not
    // kept is written at the next free slot, which is past the last when every card is kept.)
    Card gathered[kDeckSize + 1];
    int n = 0;
    for (int p = 0; p < s.config.players; ++p)
        for (int i = 0; i < s.discard_size; ++i) {
            gathered[n] = discard_card(s, i);
            n += owner[i] == p;
        }
    SplitMix64 rng(s.rng);
    shuffle(gathered, n, rng);
    s.rng = rng.state();
    // gathered[0] is the top: the pile (bottom first) is gathered reversed, eight cards at a time
    // (cold code is not vectorized).
    Card* pile = draw_pile_data(s);
    int k = 0;
    for (; k + 8 <= n; k += 8) {
        std::uint64_t w;
        std::memcpy(&w, gathered + n - 8 - k, 8);
        w = bits::bswap64(w);
        std::memcpy(pile + k, &w, 8);
    }
    for (; k < n; ++k) pile[k] = gathered[n - 1 - k];
    s.draw_size = static_cast<std::uint8_t>(n);
    s.discard_size = 0;
}

void record_sequences(GameState& s, int team, int cell, int declares) {
    std::uint8_t windows[2 * kDirections];
    const int n = declared_windows(cell, declares, windows);
    for (int i = 0; i < n; ++i) {
        s.sequences[s.sequence_count++] = {static_cast<std::uint8_t>(team), windows[i]};
        s.locked |= window_mask(windows[i]) & ~corners();
    }
}

}  // namespace turn

GameState undealt_game(const Config& config, std::uint64_t seed, std::uint32_t max_turns) {
    GameState s;
    s.config = config;
    s.seed = seed;
    s.has_seed = true;
    s.max_turns = max_turns;
    return s;
}

GameState new_game(const Config& config, std::uint64_t seed, std::uint32_t max_turns) {
    assert(is_valid_split(config.players, config.teams) && config.hand_size == hand_size_for(config.players));
    GameState s = undealt_game(config, seed, max_turns);
    const int n = config.players;

    Card deck[kDeckSize];
    for (int i = 0; i < kDeckSize; ++i) deck[i] = static_cast<Card>(i % kCardKinds);
    SplitMix64 rng(seed);
    shuffle(deck, kDeckSize, rng);  // the cards come out of the box

    // R4: everyone cuts; the lowest rank deals; ties cut again among themselves.
    int cutters[kMaxPlayers];
    int cutting = n;
    for (int p = 0; p < n; ++p) cutters[p] = p;
    while (cutting > 1) {
        shuffle(deck, kDeckSize, rng);
        int low = kRanks;
        for (int k = 0; k < cutting; ++k) low = std::min(low, rank_of(deck[k]));
        int kept = 0;
        for (int k = 0; k < cutting; ++k)
            if (rank_of(deck[k]) == low) cutters[kept++] = cutters[k];
        cutting = kept;
    }
    s.dealer = static_cast<std::uint8_t>(cutters[0]);

    // R3, R4: one card at a time from the dealer's left.
    shuffle(deck, kDeckSize, rng);
    int top = 0;
    for (int round = 0; round < config.hand_size; ++round)
        for (int k = 1; k <= n; ++k) hand_insert(s, (s.dealer + k) % n, deck[top++]);
    s.draw_size = static_cast<std::uint8_t>(kDeckSize - top);
    for (int k = 0; k < s.draw_size; ++k) set_draw_pile_card(s, k, deck[kDeckSize - 1 - k]);
    s.current_player = static_cast<std::uint8_t>((s.dealer + 1) % n);
    s.rng = rng.state();
    return s;
}

bool legal_moves(const GameState& s, MoveList& out) {
    generate(s, out);
    return !out.overflow;
}

void legal_moves(const GameState& s, std::vector<MoveId>& out) {
    VectorSink sink{out};
    generate(s, sink);
}

bool is_well_formed(MoveId id) {
    if (id >> 27 != 0) return false;
    const Move m = Move::from_id(id);
    if (m.kind == MoveKind::Pass) return id == Move::pass().id();
    if (!is_valid_card(m.card)) return false;
    if (m.kind == MoveKind::Trade) return m.cell == 0 && m.declares == 0;
    if (m.cell >= kCells) return false;
    if (m.kind == MoveKind::Remove) return m.declares == 0;
    for (int d = 0; d < kDirections; ++d) {  // a placement: each code names windows on the board
        const int v = m.declare(d);
        if (v == kDeclareNone) continue;
        if (v > kDeclarePair) return false;
        if (v == kDeclarePair) {
            if (window_at(m.cell, d, kWindowLength - 1) == kNoWindow || window_at(m.cell, d, 0) == kNoWindow) return false;
        } else if (window_at(m.cell, d, v - 1) == kNoWindow) {
            return false;
        }
    }
    return true;
}

MoveError check_move(const GameState& s, MoveId id) {
    if (is_over(s)) return MoveError::GameOver;
    if (!is_well_formed(id)) return MoveError::Malformed;
    const Move m = Move::from_id(id);
    switch (m.kind) {
        case MoveKind::Trade: return check_trade(s, m);
        case MoveKind::Place: return check_placement(s, m);
        case MoveKind::Remove: return check_removal(s, m);
        case MoveKind::Pass: return has_play(s) ? MoveError::PlayAvailable : MoveError::None;
    }
    return MoveError::Malformed;
}

void apply_move(GameState& s, MoveId id) {
    assert(check_move(s, id) == MoveError::None);
    turn::StateHands hands;
    turn::play(s, hands, id);
}

MoveError play_move(GameState& s, MoveId id) {
    const MoveError e = check_move(s, id);
    if (e == MoveError::None) apply_move(s, id);
    return e;
}

bool is_dead_card(const GameState& s, int card) {
    return is_normal_card(card) && card_cells(card).subset_of(occupied(s));
}

int dead_cards(const GameState& s, int player, Card out[kMaxHand]) {
    int n = 0;
    for (int i = 0; i < s.hand_count[player]; ++i) {
        const Card card = s.hands[player][i];
        if (is_dead_card(s, card) && (n == 0 || out[n - 1] != card)) out[n++] = card;
    }
    return n;
}

RefereeError table_talk_penalty(GameState& s, int team, const int cards[kMaxPlayers]) {
    if (is_over(s)) return RefereeError::GameOver;
    if (team < 0 || team >= s.config.teams) return RefereeError::BadTeam;
    for (int p = 0; p < kMaxPlayers; ++p) {
        const bool member = p < s.config.players && team_of(s, p) == team;
        if (!member && cards[p] != -1) return RefereeError::NotTeamMember;
        if (member && !is_valid_card(cards[p])) return RefereeError::MissingCard;
        if (member && !hand_contains(s, p, cards[p])) return RefereeError::CardNotInHand;
    }
    for (int p = team; p < s.config.players; p += s.config.teams) {  // seat order
        hand_remove(s, p, cards[p]);
        push_discard(s, cards[p], p);
    }
    if (s.last_draw_player >= 0 && !hand_contains(s, s.last_draw_player, s.last_draw_card))
        s.last_draw_player = -1;
    return RefereeError::None;
}

RefereeError missed_draw(GameState& s, int player) {
    if (is_over(s)) return RefereeError::GameOver;
    if (player < 0 || player >= s.config.players) return RefereeError::BadPlayer;
    if (s.last_draw_player < 0) return RefereeError::NoLastDraw;
    if (s.last_draw_player != player) return RefereeError::NotLastDrawPlayer;
    if (!hand_contains(s, player, s.last_draw_card)) return RefereeError::NoLastDraw;  // defensive
    hand_remove(s, player, s.last_draw_card);
    set_draw_pile_card(s, s.draw_size++, s.last_draw_card);  // back on top: drawn next
    s.last_draw_player = -1;
    return RefereeError::None;
}

}  // namespace SEQUENCE_ISA
}  // namespace sequence
