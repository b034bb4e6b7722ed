#include "sequence/state.hpp"

namespace sequence {
inline namespace SEQUENCE_ISA {

int hand_size_for(int players) {
    switch (players) {  // R3
        case 2: return 7;
        case 3: case 4: return 6;
        case 6: return 5;
        case 8: case 9: return 4;
        case 10: case 12: return 3;
        default: return 0;
    }
}

int default_teams(int players) {
    if (hand_size_for(players) == 0) return 0;
    if (players <= 3) return players;  // R2: 2 or 3 players play individually
    return players == 9 ? 3 : 2;
}

bool is_valid_split(int players, int teams) {
    if (hand_size_for(players) == 0) return false;
    if (teams == default_teams(players)) return true;
    return (players == 6 || players == 12) && teams == 3;  // R2: 6 and 12 may play as 3 teams
}

bool make_config(int players, int teams, Config& out) {
    if (!is_valid_split(players, teams)) return false;
    out.players = static_cast<std::uint8_t>(players);
    out.teams = static_cast<std::uint8_t>(teams);
    out.hand_size = static_cast<std::uint8_t>(hand_size_for(players));
    out.sequences_to_win = teams == 2 ? 2 : 1;  // R8
    return true;
}

}  // namespace SEQUENCE_ISA
}  // namespace sequence
