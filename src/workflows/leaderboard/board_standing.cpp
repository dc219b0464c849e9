// Reading a board's overall standings back from its Markdown page (schedlab/board_standing.hpp).
#include "schedlab/board_standing.hpp"

#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "schedlab/error.hpp"

namespace schedlab {

namespace {

[[noreturn]] void refuse(const std::string& path, const std::string& problem) {
  throw ConfigError(fmt::format("--leaderboard {}: {}", path, problem));
}

// The cells of a Markdown table line "| a | b \| c |": split on '|' not escaped by '\', each
// trimmed, "\|" kept as '|'.
std::vector<std::string> table_cells(const std::string& line) {
  std::vector<std::string> cells;
  std::string cell;
  for (std::size_t i = 1; i < line.size(); ++i) {
    if (line[i] == '\\' && i + 1 < line.size() && line[i + 1] == '|') {
      cell += '|';
      ++i;
    } else if (line[i] == '|') {
      const std::size_t first = cell.find_first_not_of(' ');
      const std::size_t last = cell.find_last_not_of(' ');
      cells.push_back(first == std::string::npos ? "" : cell.substr(first, last - first + 1));
      cell.clear();
    } else {
      cell += line[i];
    }
  }
  return cells;
}

}  // namespace

BoardStanding read_board_standing(const std::string& path) {
  std::error_code error;
  const std::string file = std::filesystem::is_directory(path, error)
                               ? (std::filesystem::path(path) / "leaderboard.md").string()
                               : path;
  std::ifstream in(file, std::ios::binary);
  if (!in) refuse(path, fmt::format("cannot read {}", file));
  BoardStanding board;
  std::string line;
  std::string track;  // the "## Track NAME" section we are in
  bool in_overall = false;
  bool separator_seen = false;
  BoardTrackStanding* table = nullptr;  // the overall table being read
  while (std::getline(in, line)) {
    if (board.title.empty() && line.starts_with("# ")) board.title = line.substr(2);
    if (line.starts_with("## Track ")) {
      track = line.substr(9);
      in_overall = false;
      table = nullptr;
      continue;
    }
    if (line.starts_with("## ") || line.starts_with("### ")) {
      in_overall = line == "## Overall" || (!track.empty() && line == "### Overall");
      table = nullptr;
      separator_seen = false;
      continue;
    }
    if (!in_overall) continue;
    if (!line.starts_with("|")) {
      if (table != nullptr) in_overall = false;  // the first table only
      continue;
    }
    if (table == nullptr) {
      board.tracks.push_back({track, table_cells(line), {}});
      table = &board.tracks.back();
    } else if (!separator_seen) {
      separator_seen = true;
    } else {
      table->rows.push_back(table_cells(line));
    }
  }
  if (board.tracks.empty())
    refuse(path,
           "holds no leaderboard (no table of policies under '## Overall'; give a "
           "leaderboard.md or the directory schedlab leaderboard wrote)");
  for (const auto& standing : board.tracks) {
    if (standing.header.size() < 3 || standing.header[1] != "policy" || standing.rows.empty())
      refuse(path, fmt::format("the overall table{} is not a table of policies",
                               standing.track.empty() ? "" : " of track " + standing.track));
    for (const auto& row : standing.rows)
      if (row.size() != standing.header.size())
        refuse(path, fmt::format("the overall table's row for '{}' has {} cells, its header {}",
                                 row.size() > 1 ? row[1] : "", row.size(), standing.header.size()));
  }
  return board;
}

std::string board_label_policy(const std::string& label,
                               const std::vector<std::string>& policy_names) {
  std::string best;
  for (const std::string& name : policy_names) {
    if (name.size() <= best.size() || !label.starts_with(name)) continue;
    if (label.size() == name.size() || label[name.size()] == '-' || label[name.size()] == '(')
      best = name;
  }
  return best;
}

std::vector<std::size_t> board_rows_of_policy(const BoardTrackStanding& track,
                                              const std::string& policy,
                                              const std::vector<std::string>& policy_names) {
  std::vector<std::size_t> rows;
  for (std::size_t r = 0; r < track.rows.size(); ++r)
    if (board_label_policy(track.rows[r][1], policy_names) == policy) rows.push_back(r);
  return rows;
}

}  // namespace schedlab
