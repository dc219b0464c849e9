// Policy cards in Markdown (schedlab/policy_card.hpp).
#include "schedlab/policy_card.hpp"

#include <cctype>

#include <fmt/format.h>

namespace schedlab {

namespace {

constexpr const char* kNotStated = "not stated";

// Text in a Markdown table cell: '|' escaped, line breaks as spaces.
std::string cell(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '|') out += '\\';
    out += c == '\n' ? ' ' : c;
  }
  return out;
}

std::string or_not_stated(const std::string& text) {
  return text.empty() ? std::string(kNotStated) : text;
}

std::string table_row(const std::vector<std::string>& cells) {
  std::string out = "|";
  for (const auto& c : cells) out += ' ' + cell(c) + " |";
  return out + '\n';
}

std::string needs_section(const PolicyInfo& info) {
  const PolicyCardFacts& facts = info.card;
  const bool stated = facts.inputs_stated;
  const auto answer = [&](bool yes) -> std::string {
    if (!stated) return kNotStated;
    return yes ? "yes" : "no";
  };
  std::string preempts = answer(facts.preempts);
  if (stated && !facts.preempts && facts.preempts_optionally)
    preempts = "only when a parameter says so";
  std::string out = "## What it needs\n\n| input or behaviour | |\n|---|---|\n";
  out += table_row(
      {"walltimes (the trace's, else the `--estimate` rule)", answer(facts.needs_walltimes)});
  // uses_tenants is every registration's statement about tenants; without the others stated a
  // plain "no" could be an omission.
  out += table_row({"tenants (schedules by tenant)", info.uses_tenants ? "yes" : answer(false)});
  out += table_row({"job priorities", answer(facts.needs_priorities)});
  out += table_row({"preempts running jobs (default parameters)", preempts});
  return out;
}

std::string standing_section(const PolicyInfo& info, const PolicyCardInputs& inputs) {
  std::string out = "## Standing\n\n";
  if (!inputs.board) {
    return out +
           "No leaderboard given (`schedlab policies --card NAME --leaderboard "
           "PATH`).\n";
  }
  const BoardStanding& board = *inputs.board;
  bool listed = false;
  for (const BoardTrackStanding& track : board.tracks) {
    const std::vector<std::size_t> rows =
        board_rows_of_policy(track, info.name, inputs.policy_names);
    if (rows.empty()) continue;
    listed = true;
    out += fmt::format(
        "Overall standings on \"{}\"{}, as the board states them: in each replicate a policy's "
        "rank among the {} entries on every trace, averaged over the traces per metric; the "
        "score averages those over the metrics (lower is better; \"≈\": not significantly "
        "different from rank 1).\n\n",
        board.title, track.track.empty() ? "" : fmt::format(", track {}", track.track),
        track.rows.size());
    out += table_row(track.header);
    out += '|';
    for (std::size_t c = 0; c < track.header.size(); ++c) out += c == 1 ? "---|" : "---:|";
    out += "\n";
    for (const std::size_t r : rows) out += table_row(track.rows[r]);
    out += "\n";
  }
  if (!listed) return out + fmt::format("Not on the board \"{}\".\n", board.title);
  out.pop_back();  // one line break after the last table
  return out;
}

}  // namespace

bool card_checks_never_preempts(const PolicyInfo& info) {
  return info.card.inputs_stated && !info.card.preempts;
}

std::string card_contract_command(const PolicyInfo& info) {
  return fmt::format("schedlab check-policy --policy {}{}", info.name,
                     card_checks_never_preempts(info) ? " --never-preempts" : "");
}

std::string policy_card_markdown(const PolicyInfo& info, const PolicyCardInputs& inputs) {
  std::string out = fmt::format("# Policy card: {}\n\n{}\n\n", info.name, info.summary);
  out += fmt::format(
      "Origin: {}. Generated from its registration by `schedlab policies --card "
      "{}` (docs/policies.md, \"Policy cards\").\n\n",
      inputs.origin, info.name);
  out += "## Algorithm\n\n" + or_not_stated(info.card.algorithm) + "\n\n";
  out += "## Parameters\n\n";
  if (info.params.empty()) {
    out += "None.\n\n";
  } else {
    out += "| parameter | default | unit | description |\n|---|---|---|---|\n";
    for (const PolicyParamInfo& p : info.params)
      out += table_row({'`' + p.key + '`', '`' + p.default_value + '`', or_not_stated(p.unit),
                        or_not_stated(p.description)});
    out += '\n';
  }
  out += "## Citation\n\n" + or_not_stated(info.card.citation) + "\n\n";
  out += needs_section(info) + '\n';
  out += fmt::format("## Contract check\n\n`{}`", inputs.contract_command);
  if (inputs.contract_report.empty()) {
    out += ": not run for this card.\n\n";
  } else {
    out += ":\n\n```\n" + inputs.contract_report;
    if (!inputs.contract_report.ends_with('\n')) out += '\n';
    out += "```\n\n";
  }
  out += standing_section(info, inputs);
  return out;
}

std::string policy_card_file_name(const std::string& policy) {
  std::string out;
  for (char c : policy)
    out += std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '.' || c == '_' || c == '-'
               ? c
               : '_';
  return out + ".md";
}

}  // namespace schedlab
