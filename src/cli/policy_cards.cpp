// Putting a policy card's inputs together (policy_cards.hpp).
#include "policy_cards.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "schedlab/plugin.hpp"
#include "schedlab/policy_card.hpp"
#include "schedlab/policy_contract.hpp"

namespace schedlab::cli {

std::string policy_origin(const PolicyInfo& info) {
  if (info.name.starts_with("py:")) return "Python class";
  for (const LoadedPlugin& plugin : loaded_plugins())
    if (std::find(plugin.policies.begin(), plugin.policies.end(), info.name) !=
        plugin.policies.end())
      return "plug-in " + plugin.path;
  return "built-in";
}

std::string policy_card(const PolicyInfo& info, const std::optional<BoardStanding>& board,
                        bool run_contract_check) {
  PolicyCardInputs inputs;
  inputs.origin = policy_origin(info);
  inputs.contract_command = card_contract_command(info);
  if (run_contract_check) {
    PolicyContractOptions options;
    options.never_preempts = card_checks_never_preempts(info);
    inputs.contract_report =
        format_policy_contract_report(check_policy_contract(info.name, options));
  }
  inputs.board = board;
  for (const PolicyInfo& registered : registered_policies())
    inputs.policy_names.push_back(registered.name);
  return policy_card_markdown(info, inputs);
}

}  // namespace schedlab::cli
