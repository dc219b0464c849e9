// Slurm array scripts for a sweep: one array task per shard, then a job that merges the shards.
#include <filesystem>
#include <memory>

#include <fmt/format.h>

#include "schedlab/carbon.hpp"
#include "schedlab/error.hpp"
#include "schedlab/failure_model.hpp"
#include "schedlab/json_text.hpp"
#include "schedlab/sweep.hpp"
#include "schedlab/sweep_batch.hpp"

namespace schedlab {

namespace fs = std::filesystem;

namespace {

std::string absolute_path(const std::string& path) {
  return fs::absolute(path).lexically_normal().string();
}

// A word for the shell: single-quoted unless it is plainly safe.
std::string shell_word(const std::string& text) {
  if (!text.empty() &&
      text.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./"
                             ":=@%+,") == std::string::npos)
    return text;
  std::string out = "'";
  for (const char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

}  // namespace

SweepSpec with_absolute_paths(SweepSpec spec) {
  for (auto& trace : spec.traces) trace.path = absolute_path(trace.path);
  for (auto& cluster : spec.clusters) cluster = rewrite_cluster_spec_file(cluster, absolute_path);
  if (spec.options.failure_trace) {
    auto copy = std::make_shared<FailureTrace>(*spec.options.failure_trace);
    copy->path = absolute_path(copy->path);
    spec.options.failure_trace = std::move(copy);
  }
  if (spec.options.carbon) {
    auto copy = std::make_shared<CarbonSeries>(*spec.options.carbon);
    copy->path = absolute_path(copy->path);
    spec.options.carbon = std::move(copy);
  }
  return spec;
}

std::vector<std::pair<std::string, std::string>> slurm_array_files(
    const SweepSpec& spec, const SlurmArrayRequest& request) {
  const std::size_t cells = expand_cells(spec).size();
  SCHEDLAB_ASSERT(request.shards >= 1 && request.shards <= cells, "one to `cells` shards");
  SCHEDLAB_ASSERT(request.cpus_per_task >= 1, "a task has a CPU");
  const std::string out = request.out_dir;
  const std::string exe = shell_word(request.executable);
  auto header = [&](const std::string& name, const std::string& log) {
    std::string text = "#!/bin/bash\n";
    text += fmt::format("#SBATCH --job-name={}\n", name);
    text += fmt::format("#SBATCH --chdir={}\n", shell_word(request.working_dir));
    text += fmt::format("#SBATCH --output={}\n", shell_word(out + "/logs/" + log));
    if (!request.partition.empty())
      text += fmt::format("#SBATCH --partition={}\n", shell_word(request.partition));
    if (!request.time_limit.empty())
      text += fmt::format("#SBATCH --time={}\n", shell_word(request.time_limit));
    return text;
  };

  std::string sweep = header("schedlab-sweep", "shard-%a.log");
  sweep += fmt::format("#SBATCH --array=1-{}\n", request.shards);
  sweep += fmt::format("#SBATCH --cpus-per-task={}\n", request.cpus_per_task);
  sweep += fmt::format(
      "#\n"
      "# A schedlab sweep of {} cells as {} array tasks: task K runs shard K/{} of {}/spec.json\n"
      "# into {}/shards/K (resumable: a resubmitted task skips its finished cells).\n"
      "# Submit with the merge job, which joins the shards into {}:\n"
      "#   jid=$(sbatch --parsable {}/sweep.sbatch)\n"
      "#   sbatch --dependency=afterany:$jid {}/merge.sbatch\n"
      "set -euo pipefail\n"
      "shard=\"${{SLURM_ARRAY_TASK_ID:?run as a Slurm array task (sbatch), or set it}}\"\n"
      "exec {} sweep {} --shard \"$shard/{}\" -j \"${{SLURM_CPUS_PER_TASK:-{}}}\" -q \\\n"
      "  -o {}/\"$shard\"\n",
      cells, request.shards, request.shards, out, out, out, out, out, exe,
      shell_word(out + "/spec.json"), request.shards, request.cpus_per_task,
      shell_word(out + "/shards"));

  std::string merge = header("schedlab-sweep-merge", "merge.log");
  merge += fmt::format(
      "#\n"
      "# Joins the {} shards in {}/shards into one results set in {}\n"
      "# (refuses shards of another spec, and says which shard to run again when one is "
      "missing).\n"
      "set -euo pipefail\n"
      "exec {} sweep --merge {}/* -o {}\n",
      request.shards, out, out, exe, shell_word(out + "/shards"), shell_word(out));

  return {{"spec.json", json_text(sweep_spec_json(spec), 2) + "\n"},
          {"sweep.sbatch", std::move(sweep)},
          {"merge.sbatch", std::move(merge)}};
}

}  // namespace schedlab
