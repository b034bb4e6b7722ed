// Cards (R1): two standard decks, no jokers. A card is named by its id = 4 * rank + suit
// (docs/rng.md), ranks 2 3 4 5 6 7 8 9 T J Q K A = 0..12, suits S H D C = 0..3.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "sequence/isa.hpp"

namespace sequence {
inline namespace SEQUENCE_ISA {

using Card = std::uint8_t;

constexpr int kRanks = 13;
constexpr int kSuits = 4;
constexpr int kCardKinds = 52;    // distinct card ids 0..51
constexpr int kDeckSize = 104;    // R1: two decks
constexpr int kCopiesPerCard = 2;

constexpr int kJackRank = 9;
constexpr Card kJackSpades = 36;    // one-eyed: removes a chip (R5)
constexpr Card kJackHearts = 37;    // one-eyed
constexpr Card kJackDiamonds = 38;  // two-eyed: wild placement (R5)
constexpr Card kJackClubs = 39;     // two-eyed

constexpr int rank_of(int card) { return card >> 2; }
constexpr int suit_of(int card) { return card & 3; }
constexpr int make_card(int rank, int suit) { return 4 * rank + suit; }
constexpr bool is_valid_card(int card) { return card >= 0 && card < kCardKinds; }
constexpr bool is_jack(int card) { return rank_of(card) == kJackRank; }
// R1/R5: JD and JC place anywhere empty; JH and JS remove an unlocked chip of another team.
constexpr bool is_two_eyed_jack(int card) { return card == kJackDiamonds || card == kJackClubs; }
constexpr bool is_one_eyed_jack(int card) { return card == kJackSpades || card == kJackHearts; }
// A normal card is printed on exactly two board cells (R1).
constexpr bool is_normal_card(int card) { return is_valid_card(card) && !is_jack(card); }

// Returns the id of a 2-character card text ("7H", "th"; also "10d"; case-insensitive,
// docs/notation.md), or -1 if the text is not a card.
int parse_card(std::string_view text);

// Returns the canonical 2-character text of a card ("7H", "TD"). Requires is_valid_card(card).
std::string format_card(int card);

}  // namespace SEQUENCE_ISA
}  // namespace sequence
