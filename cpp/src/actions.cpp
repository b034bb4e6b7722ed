#include "sequence/actions.hpp"

#include <algorithm>
#include <cassert>
#include <cstring>
#include <vector>

namespace sequence {

namespace {

DeclareOptions options_of(const GameState& s, const Move& m) {
    DeclareOptions opt;
    declare_options(s, team_of(s, s.current_player), m.cell, opt);
    return opt;
}

int next_direction(const DeclareOptions& opt, const Move& m) {
    for (int d = 0; d < kDirections; ++d)
        if (opt.count[d] > 1 && m.declare(d) == kDeclareNone) return d;
    return -1;
}

// The declare actions of direction d: a direction with a choice offers single windows only (the
// pair of 9 in a row is the one maximal choice where it exists, R7).
template <class Visit>
void visit_declare_actions(const DeclareOptions& opt, int cell, int d, Visit visit) {
    for (int i = 0; i < opt.count[d]; ++i) {
        const int code = opt.codes[d][i];
        assert(code >= 1 && code <= kWindowLength);
        visit(code, declare_action(window_at(cell, d, code - 1)));
    }
}

}  // namespace

bool is_valid_pending(const GameState& s, const PendingPlacement& p) {
    if (!p.active()) return true;
    if (is_over(s)) return false;
    const Move m = Move::from_id(p.move);
    if (m.kind != MoveKind::Place || Move::place(m.card, m.cell, m.declares).id() != p.move || m.cell >= kCells) return false;
    const DeclareOptions opt = options_of(s, m);
    int first = 0;
    for (int d = 0; d < kDirections; ++d) first = with_declare(first, d, opt.codes[d][0]);
    if (check_move(s, Move::place(m.card, m.cell, first).id()) != MoveError::None) return false;
    bool open = false;  // a direction with a choice is still undecided
    for (int d = 0; d < kDirections; ++d) {
        const int code = m.declare(d);
        if (opt.count[d] == 1) {
            if (code != opt.codes[d][0]) return false;
        } else if (code == kDeclareNone) {
            open = true;
        } else if (open || std::find(opt.codes[d], opt.codes[d] + opt.count[d], code) == opt.codes[d] + opt.count[d]) {
            return false;
        }
    }
    return open;
}

int pending_direction(const GameState& s, const PendingPlacement& p) {
    assert(p.active());
    const Move m = Move::from_id(p.move);
    return next_direction(options_of(s, m), m);
}

int legal_action_mask(const GameState& s, const PendingPlacement& p, std::uint8_t* mask) {
    std::memset(mask, 0, kActionCount);
    if (is_over(s)) return 0;
    int n = 0;
    if (p.active()) {
        const Move m = Move::from_id(p.move);
        const DeclareOptions opt = options_of(s, m);
        const int d = next_direction(opt, m);
        if (d < 0) return 0;
        visit_declare_actions(opt, m.cell, d, [&](int, int action) { n += mask[action] == 0; mask[action] = 1; });
        return n;
    }
    MoveList list;
    if (legal_moves(s, list)) {
        for (MoveId id : list) {
            const int a = action_of_move(id);
            n += mask[a] == 0;
            mask[a] = 1;
        }
    } else {  // more than kMoveListCapacity moves: contrived positions with many declares choices only
        std::vector<MoveId> all;
        legal_moves(s, all);
        for (MoveId id : all) {
            const int a = action_of_move(id);
            n += mask[a] == 0;
            mask[a] = 1;
        }
    }
    return n;
}

int legal_actions(const GameState& s, const PendingPlacement& p, int* out) {
    std::uint8_t mask[kActionCount];
    legal_action_mask(s, p, mask);
    int n = 0;
    for (int a = 0; a < kActionCount; ++a)
        if (mask[a]) out[n++] = a;
    return n;
}

ActionOutcome resolve_action(const GameState& s, PendingPlacement& p, int action, MoveId& move) {
    if (is_over(s) || action < 0 || action >= kActionCount) return ActionOutcome::Illegal;
    if (p.active()) {  // only a declare action of the next direction with a choice
        const int window = window_of_action(action);
        if (window < 0) return ActionOutcome::Illegal;
        const Move m = Move::from_id(p.move);
        const DeclareOptions opt = options_of(s, m);
        const int d = next_direction(opt, m);
        if (d < 0) return ActionOutcome::Illegal;
        int chosen = kDeclareNone;
        visit_declare_actions(opt, m.cell, d, [&](int code, int a) { if (a == action) chosen = code; });
        if (chosen == kDeclareNone) return ActionOutcome::Illegal;
        const Move next = Move::place(m.card, m.cell, with_declare(m.declares, d, chosen));
        if (next_direction(opt, next) >= 0) {
            p.move = next.id();
            return ActionOutcome::Pending;
        }
        assert(check_move(s, next.id()) == MoveError::None);
        move = next.id();
        p = PendingPlacement{};
        return ActionOutcome::Move;
    }
    Move m;
    if (action == kPassAction) {
        m = Move::pass();
    } else if (action >= kTradeActionBase) {
        m = Move::trade(action - kTradeActionBase);
    } else {
        const int card = action / kCells, cell = action % kCells;
        if (is_corner(cell)) return ActionOutcome::Illegal;  // a declare action, and nothing is pending
        if (is_one_eyed_jack(card)) {
            m = Move::remove(card, cell);
        } else {
            // A placement: legal with the first declares choice of every direction, pending if any
            // direction has a choice (its code stays 0 until its declare action).
            m = Move::place(card, cell);
            const DeclareOptions opt = options_of(s, m);
            int first = 0, fixed = 0;
            bool choice = false;
            for (int d = 0; d < kDirections; ++d) {
                first = with_declare(first, d, opt.codes[d][0]);
                if (opt.count[d] == 1) fixed = with_declare(fixed, d, opt.codes[d][0]);
                else choice = true;
            }
            if (check_move(s, Move::place(card, cell, first).id()) != MoveError::None) return ActionOutcome::Illegal;
            if (choice) {
                p.move = Move::place(card, cell, fixed).id();
                return ActionOutcome::Pending;
            }
            m = Move::place(card, cell, first);
        }
    }
    if (check_move(s, m.id()) != MoveError::None) return ActionOutcome::Illegal;
    move = m.id();
    return ActionOutcome::Move;
}

}  // namespace sequence
