// Inference of hidden cards for the search: determinizations drawn in proportion to how well each
// other player's recent turns are explained by the hand the determinization gives them.
//
// The evidence is public (R9): the moves of the game (every play, trade and pass is made face up,
// R5) and the board before each of them. public_history() reads them from a Game through observe()
// (ismcts.hpp), the one R9 filter, so a history holds nothing the searching player may not see.
//
// The model (SearchOptions::inference, options.hpp). A player's turn is explained by the hand they
// held when they made it. For each of the last `inference_plays` turns (plays and passes) of each
// other player, and each trade in those turns:
//   - a play (R5 step 2) from hand H: the best move the heuristic (heuristic.hpp, GreedyAgent's
//     scoring, log scale) finds for any card of H is compared with the move made; the shortfall
//     beyond inference_margin is evidence against H (0 models a player who always makes the
//     heuristic's best play, as GreedyAgent does; larger values forgive other judgements). Completing a sequence (R7) or winning
//     (R8) is scored on the cell that would complete it, so a hand that could have completed a
//     sequence, blocked a four, or placed a plain card where a jack was spent, is unlikely;
//   - a two-eyed jack placed on a cell whose own card was in H (R5: the plain card would have made
//     the same placement and kept the jack) adds kInferenceJackForPlain; on the log scale the
//     jack's cost vanishes next to a sequence or a block, so this is counted apart;
//   - a play that was the turn's first step while H held a dead card (R5 step 1: a free trade not
//     taken) adds kInferenceUntradedDead;
//   - a pass while H held a card with a legal play (R5: a pass is forced) adds kInferencePass;
//   - a trade only says that the card traded was in H (R5 step 1), which the reconstruction keeps.
// The likelihood of the determinization is exp(-inference_strength * total shortfall).
//
// Which hand H a player held k turns ago, in a determinization that gives them hand H0 now:
// walking back from now, before a change that discarded card c and drew a card x (R5 step 3,
// R6), the hand was H_after - x + c. The draws x are hidden: x is one of the cards of H_after, a
// card held now that may have been drawn at any time since. The reconstruction picks x uniformly
// among H_after, so a card the player holds now was in their hand k turns ago unless it was drawn
// since, with the prior chance; the rejection below then weights these choices with the hands.
// Whether a change drew is public: the hand size after it (a discard with no draw when both
// piles were empty, R6). R10 referee calls (a table-talk discard, a missed draw) end the
// evidence: the turns before the latest of them are not used.
//
// Sampling: each other player's hand is drawn in turn (seat order) from the cards unseen by the
// searcher, by rejection on that player's evidence: a proposal is accepted with probability equal
// to its likelihood, at most `inference_tries` proposals; if none is accepted the most likely one
// is kept. The draw pile is the rest of the unseen cards, shuffled (its order carries no
// evidence). The evidence of each turn is tabulated once per search (per card: the best score a
// card of that kind could reach), so a proposal costs a partial shuffle and a few table lookups
// per turn, not a move generation.
#pragma once

#if !SEQUENCE_RESEARCH
#error "inference.hpp is part of the research build only: configure with -DSEQUENCE_RESEARCH=ON"
#endif

#include <cstdint>
#include <vector>

#include "sequence/game.hpp"
#include "sequence/isa.hpp"
#include "sequence/rng.hpp"
#include "sequence/search/ismcts.hpp"
#include "sequence/search/options.hpp"

namespace sequence {
inline namespace SEQUENCE_ISA {

// Shortfall constants of the model (log-heuristic units: 1 = a move scoring e times less).
constexpr double kInferenceUntradedDead = 2.0;  // a dead card kept through the turn's play (R5 step 1)
constexpr double kInferenceJackForPlain = 2.0;  // a two-eyed jack placed where a card in hand would go (R5)
constexpr double kInferencePass = 20.0;         // a pass while holding a playable card (R5)

// One change of the game as the searching player saw it: the observation of the state before it
// (observe(), R9) and the move made. Referee calls (R10) are recorded as referee = true.
struct PublicChange {
    GameState before;  // an observation: hidden fields are zero
    MoveId move = 0;
    bool referee = false;
};

// The recent public changes of a game for `observer`, oldest first: enough of the latest changes
// to hold `plays` turns (plays and passes) of every other player, or all of them back to the
// latest referee call (R10) or to the start of the history. Reads the states before each change
// only through observe(..., observer).
std::vector<PublicChange> public_history(const Game& game, int observer, int plays);

// The evidence of one turn step of another player (see the model above).
struct InferenceEvent {
    enum class Kind : std::uint8_t { Play, Trade, Pass };
    Kind kind = Kind::Play;
    std::uint8_t card = 0;        // the card discarded (Play, Trade)
    bool drew = false;            // a card was drawn after it (the hand size did not drop)
    bool first_step = false;      // Play: no trade before it this turn
    float made = 0;               // Play: log heuristic score of the move made
    std::uint64_t dead = 0;       // bit c: card c was dead on the board before (R5)
    std::uint64_t plain = 0;      // Play of a two-eyed jack: bit c for the card c of its cell
    std::uint64_t playable = 0;   // bit c: card c had a legal play on the board before
    float best[kCardKinds] = {};  // Play: the best log score of a play of card c (unplayable: -1e30)
};

// The evidence about every other player, built once per search from the root's observation and
// the public history (oldest first, ending at the root). Read-only while searching: threads share it.
class InferenceModel {
public:
    InferenceModel(const Observation& root, const std::vector<PublicChange>& history, const SearchOptions& o);

    // True if some other player has evidence (else sample() is determinize()).
    bool has_evidence() const { return has_evidence_; }
    // The steps of player p, latest first.
    const std::vector<InferenceEvent>& events(int player) const { return events_[player]; }

    // The likelihood, in (0, 1], of the evidence of `player` when they hold hand[0..n) now; the
    // hidden draws are picked with rng (see the model above).
    double likelihood(int player, const Card* hand, int n, SplitMix64& rng) const;

    // One determinization of the root observation drawn by rejection on the evidence.
    GameState sample(const Observation& obs, SplitMix64& rng) const;

private:
    std::vector<InferenceEvent> events_[kMaxPlayers];
    double strength_ = 1.0;
    double margin_ = 1.0;
    int tries_ = 16;
    bool has_evidence_ = false;
};

}  // namespace SEQUENCE_ISA
}  // namespace sequence
