// A leaderboard's overall standings as a finished board page states them (docs/leaderboard.md),
// read back for policy cards (docs/policies.md, "Policy cards").
//
// Contract: the board is the Markdown page `schedlab leaderboard` writes (leaderboard.md), read
// from that file, from a directory holding it, or from any Markdown file that embeds one (as
// docs/leaderboard.md does between its markers). Its title is the first "# " line. A board of one
// track has its overall standings in the first table after the "## Overall" heading; a board of
// tracks has one per "## Track NAME" section, in the first table after its "### Overall"
// heading. Tables are kept cell by cell as written (rank, policy label, score, mean ranks per
// metric). Nothing is recomputed.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace schedlab {

struct BoardTrackStanding {
  std::string track;                           // "" on a board without tracks
  std::vector<std::string> header;             // "rank", "policy", "score", ...
  std::vector<std::vector<std::string>> rows;  // one per board label, in rank order
};

struct BoardStanding {
  std::string title;                       // "Leaderboard: schedlab default suite"
  std::vector<BoardTrackStanding> tracks;  // in page order
};

// Reads the overall standings of the board at `path`. Throws ConfigError
// "--leaderboard PATH: problem" when the file cannot be read or holds no overall table.
BoardStanding read_board_standing(const std::string& path);

// The policy a board label stands for: the longest of `policy_names` that is the label, or that
// the label starts with followed by '-' or '(' ("sjf-nonblocking" and "sjf(blocking=false)" stand
// for sjf); "" when none does.
std::string board_label_policy(const std::string& label,
                               const std::vector<std::string>& policy_names);

// Indexes of the rows of `track` whose label stands for `policy`, in board order.
std::vector<std::size_t> board_rows_of_policy(const BoardTrackStanding& track,
                                              const std::string& policy,
                                              const std::vector<std::string>& policy_names);

}  // namespace schedlab
