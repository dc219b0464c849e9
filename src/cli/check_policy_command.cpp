// schedlab check-policy: runs the policy contract check (include/schedlab/policy_contract.hpp)
// on one policy, built-in or loaded with --plugin; exit 0 when kept, 1 when broken.
#include <cstdio>

#include "commands.hpp"
#include "schedlab/policy.hpp"
#include "schedlab/policy_contract.hpp"

namespace schedlab::cli {

namespace {

struct CheckPolicyArgs {
  std::string policy;
  std::vector<std::string> params;
  bool never_preempts = false;
};

}  // namespace

Action add_check_policy_command(CLI::App& app) {
  auto args = std::make_shared<CheckPolicyArgs>();
  CLI::App* cmd = app.add_subcommand(
      "check-policy",
      "check that a policy keeps the engine contract on small traces and run variants");
  cmd->add_option("-p,--policy", args->policy, "policy name (see 'schedlab policies')")->required();
  cmd->add_option("--param", args->params, "policy parameter key=value (repeatable)");
  cmd->add_flag(
      "--never-preempts", args->never_preempts,
      "also require that the policy preempts no job and, without node failures, loses no work");
  return [cmd, args]() -> int {
    if (!cmd->parsed()) return -1;
    PolicyContractOptions options;
    options.params = parse_param_list(args->params);
    options.never_preempts = args->never_preempts;
    const PolicyContractReport report = check_policy_contract(args->policy, options);
    const std::string text = format_policy_contract_report(report);
    std::fwrite(text.data(), 1, text.size(), stdout);
    return report.kept() ? kExitOk : kExitRegression;
  };
}

}  // namespace schedlab::cli
