// The cards `schedlab policies --card` and `--write-cards` print and write (docs/policies.md,
// "Policy cards"): the registration, the policy's origin, its contract check and a board's
// standings put together.
#pragma once

#include <optional>
#include <string>

#include "schedlab/board_standing.hpp"
#include "schedlab/policy.hpp"

namespace schedlab::cli {

// Where the registered policy `info` comes from: "built-in", "plug-in FILE" or "Python class".
std::string policy_origin(const PolicyInfo& info);

// The card of `info`; with `run_contract_check` its contract check runs (deterministic: the
// check's fixed traces and seed, the policy's default parameters), else the card names the
// command only.
std::string policy_card(const PolicyInfo& info, const std::optional<BoardStanding>& board,
                        bool run_contract_check);

}  // namespace schedlab::cli
