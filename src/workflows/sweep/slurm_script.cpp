// Slurm array scripts for a sweep: one array task per shard, then a job that merges the shards.
#include <cctype>
#include <filesystem>
#include <memory>
#include <string_view>

#include <fmt/format.h>

#include "schedlab/carbon.hpp"
#include "schedlab/error.hpp"
#include "schedlab/failure_model.hpp"
#include "schedlab/json_text.hpp"
#include "schedlab/printable.hpp"
#include "schedlab/sweep.hpp"
#include "schedlab/sweep_batch.hpp"

namespace schedlab {

namespace fs = std::filesystem;

namespace {

std::string absolute_path(const std::string& path) {
  return fs::absolute(path).lexically_normal().string();
}

// Whether `text` means itself, unquoted, to bash and to sbatch alike.
bool plain_word(const std::string& text) {
  return !text.empty() && text.find_first_not_of(
                              "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./"
                              ":=@%+,") == std::string::npos;
}

// A value of an #SBATCH line as sbatch reads it: double-quoted unless it is plain, with '\\' and
// '"' escaped by a backslash (sbatch honours both quote characters and backslash escapes, inside
// quotes too; an unquoted '#' starts a comment, unquoted white space ends the value).
std::string sbatch_word(const std::string& text) {
  if (plain_word(text)) return text;
  std::string out = "\"";
  for (const char c : text) {
    if (c == '\\' || c == '"') out += '\\';
    out += c;
  }
  return out + "\"";
}

// Refuses a value no line of a script can hold: a control character (a newline or NUL ends the
// line or the string, the others are not meant to be in a path or a Slurm value).
void check_script_value(std::string_view what, const std::string& value) {
  for (const char c : value) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte == 0x7f)
      throw ConfigError(fmt::format(
          "{} '{}': holds the control character 0x{:02x}, which a Slurm script cannot hold", what,
          printable_text(value), byte));
  }
}

// Refuses a value an #SBATCH line cannot hold: sbatch takes "hetjob" or "packjob" anywhere in
// such a line (in any case, quoted or not) as the start of another component of the job.
void check_sbatch_value(std::string_view what, const std::string& value) {
  std::string lower = value;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const char* word : {"hetjob", "packjob"})
    if (lower.find(word) != std::string::npos)
      throw ConfigError(fmt::format(
          "{} '{}': holds '{}', which sbatch reads in an #SBATCH line as the start of another "
          "job component",
          what, printable_text(value), word));
}

}  // namespace

std::string shell_word(const std::string& text) {
  if (plain_word(text)) return text;
  std::string out = "'";
  for (const char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

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
  check_script_value("-o", out);
  check_script_value("the working directory", request.working_dir);
  check_script_value("the schedlab executable", request.executable);
  check_script_value("--partition", request.partition);
  check_script_value("--time", request.time_limit);
  check_sbatch_value("-o", out);
  check_sbatch_value("the working directory", request.working_dir);
  check_sbatch_value("--partition", request.partition);
  check_sbatch_value("--time", request.time_limit);
  // sbatch expands %-patterns in --output (%a: the array task) unless the name holds a
  // backslash, which turns them all off.
  if (out.find('\\') != std::string::npos)
    throw ConfigError(
        fmt::format("-o '{}': holds a backslash, which turns off the %a of the "
                    "log names sbatch writes (--output)",
                    printable_text(out)));
  std::string out_pattern;  // `out` with each '%' written as "%%", sbatch's literal '%'
  for (const char c : out) out_pattern += c == '%' ? std::string("%%") : std::string(1, c);
  const std::string exe = shell_word(request.executable);
  auto header = [&](const std::string& name, const std::string& log) {
    std::string text = "#!/bin/bash\n";
    text += fmt::format("#SBATCH --job-name={}\n", name);
    text += fmt::format("#SBATCH --chdir={}\n", sbatch_word(request.working_dir));
    text += fmt::format("#SBATCH --output={}\n", sbatch_word(out_pattern + "/logs/" + log));
    if (!request.partition.empty())
      text += fmt::format("#SBATCH --partition={}\n", sbatch_word(request.partition));
    if (!request.time_limit.empty())
      text += fmt::format("#SBATCH --time={}\n", sbatch_word(request.time_limit));
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
      "#   jid=$(sbatch --parsable {})\n"
      "#   sbatch --dependency=afterany:$jid {}\n"
      "set -euo pipefail\n"
      "shard=\"${{SLURM_ARRAY_TASK_ID:?run as a Slurm array task (sbatch), or set it}}\"\n"
      "exec {} sweep {} --shard \"$shard/{}\" -j \"${{SLURM_CPUS_PER_TASK:-{}}}\" -q \\\n"
      "  -o {}/\"$shard\"\n",
      cells, request.shards, request.shards, out, out, out, shell_word(out + "/sweep.sbatch"),
      shell_word(out + "/merge.sbatch"), exe, shell_word(out + "/spec.json"), request.shards,
      request.cpus_per_task, shell_word(out + "/shards"));

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
