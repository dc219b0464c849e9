// Policy cards: one Markdown page per registered policy, documenting it the way model cards
// document models (docs/policies.md, "Policy cards").
//
// Contract: a card is a pure function of the policy's registration (PolicyInfo: summary,
// parameters, PolicyCardFacts, uses_tenants), where it comes from, the verdict of its contract
// check and a board's overall standings. What the registration leaves empty reads "not stated".
// Sections, in order: summary, origin, algorithm, parameters, citation, what it needs, contract
// check, standing. Equal inputs give byte-identical cards.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "schedlab/board_standing.hpp"
#include "schedlab/policy.hpp"

namespace schedlab {

struct PolicyCardInputs {
  std::string origin;  // "built-in", "plug-in FILE", "Python class"
  // The command that checks the contract, as the card shows it, and the check's report
  // (format_policy_contract_report); an empty report says the check was not run.
  std::string contract_command;
  std::string contract_report;
  std::optional<BoardStanding> board;     // none: the card says no board was given
  std::vector<std::string> policy_names;  // registered names, to match board labels
};

// Whether the contract check of the policy's card also requires that it never preempts: its
// registration states that it does not preempt with its default parameters.
bool card_checks_never_preempts(const PolicyInfo& info);

// `schedlab check-policy --policy NAME` with --never-preempts when the card requires it.
std::string card_contract_command(const PolicyInfo& info);

// The card, in Markdown, ending with one newline.
std::string policy_card_markdown(const PolicyInfo& info, const PolicyCardInputs& inputs);

// The card's file name: the policy name with every character other than a letter, digit, '.',
// '_' or '-' replaced by '_', then ".md".
std::string policy_card_file_name(const std::string& policy);

}  // namespace schedlab
