#include "sequence/cards.hpp"

#include <cassert>
#include <cctype>

namespace sequence {
inline namespace SEQUENCE_ISA {

namespace {
constexpr char kRankChars[] = "23456789TJQKA";
constexpr char kSuitChars[] = "SHDC";
constexpr int kTenRank = 8;

int index_of(const char* chars, int count, char c) {
    const char upper = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    for (int i = 0; i < count; ++i)
        if (chars[i] == upper) return i;
    return -1;
}
}  // namespace

int parse_card(std::string_view text) {
    int rank = -1;
    if (text.size() == 3 && text[0] == '1' && text[1] == '0') {  // "10D" spells the ten
        rank = kTenRank;
        text.remove_prefix(2);
    } else if (text.size() == 2) {
        rank = index_of(kRankChars, kRanks, text[0]);
        text.remove_prefix(1);
    }
    const int suit = text.size() == 1 ? index_of(kSuitChars, kSuits, text[0]) : -1;
    return rank < 0 || suit < 0 ? -1 : make_card(rank, suit);
}

std::string format_card(int card) {
    assert(is_valid_card(card));
    return {kRankChars[rank_of(card)], kSuitChars[suit_of(card)]};
}

}  // namespace SEQUENCE_ISA
}  // namespace sequence
