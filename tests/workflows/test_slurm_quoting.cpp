// Slurm array scripts (`sweep --emit-slurm`) with hostile values: every value is quoted for
// the shell that reads it (bash for the commands, sbatch for the #SBATCH lines), and values
// no line can hold (control characters, sbatch's job-component words) are refused.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "schedlab/error.hpp"
#include "schedlab/sweep.hpp"
#include "schedlab/sweep_batch.hpp"
#include "support/builders.hpp"
#include "workflows/fixtures.hpp"

using namespace schedlab;
using namespace schedlab::testing;
namespace fs = std::filesystem;

namespace {

// The arguments sbatch reads from the rest of an #SBATCH line: white space separates them,
// '"' and '\'' quote (either one), a backslash escapes the next character anywhere, an unquoted
// '#' ends the line. (Slurm's src/sbatch/opt.c, _get_argument, re-written.)
std::vector<std::string> sbatch_arguments(const std::string& rest) {
  std::vector<std::string> arguments;
  std::size_t at = 0;
  while (true) {
    while (at < rest.size() && std::isspace(static_cast<unsigned char>(rest[at])) != 0) ++at;
    if (at == rest.size()) return arguments;
    std::string argument;
    char quote = 0;
    bool escaped = false;
    bool comment = false;
    for (; at < rest.size() &&
           (quote != 0 || std::isspace(static_cast<unsigned char>(rest[at])) == 0);
         ++at) {
      const char c = rest[at];
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
        continue;
      } else if (quote != 0) {
        if (c == quote) {
          quote = 0;
          continue;
        }
      } else if (c == '"' || c == '\'') {
        quote = c;
        continue;
      } else if (c == '#') {
        comment = true;
        break;
      }
      argument += c;
    }
    REQUIRE(quote == 0);  // sbatch: "Unmatched quote"
    if (!argument.empty()) arguments.push_back(argument);
    if (comment) return arguments;
  }
}

// The arguments of every #SBATCH line of `script`, one list per line.
std::vector<std::vector<std::string>> sbatch_lines(const std::string& script) {
  std::vector<std::vector<std::string>> lines;
  std::istringstream in(script);
  for (std::string line; std::getline(in, line);)
    if (line.starts_with("#SBATCH")) lines.push_back(sbatch_arguments(line.substr(7)));
  return lines;
}

std::string emit(const std::string& cwd, const std::string& trace, const std::string& out,
                 const std::string& extra, CommandResult* result) {
  *result = run_command(fmt::format(
      "cd {} && {} sweep -p fifo -p sjf -t {} -c 2x8:V100 --reproducible -q -o {} --emit-slurm "
      "--shards 1 {}",
      shell_quote(cwd), shell_quote(schedlab_binary()), shell_quote(trace), shell_quote(out),
      extra));
  return result->err;
}

std::size_t count_lines(const std::string& text) {
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

}  // namespace

TEST_CASE("emit-slurm refuses values a script cannot hold", "[workflows][sweep][slurm]") {
  const std::string dir = fresh_temp_dir("slurm-refused");
  const std::string trace = write_small_trace(dir);
  const std::string plain_out = dir + "/out";
  struct Case {
    std::string cwd, out, extra, names;
  };
  const std::string newline_dir = dir + "/wd\ntouch pwned-cwd";
  fs::create_directories(newline_dir);
  const std::vector<Case> cases = {
      {dir, dir + "/out\ntouch pwned-o", "", "-o '"},
      {dir, plain_out, "--partition \"$(printf 'gpu\\ntouch pwned-p')\"", "--partition 'gpu\\n"},
      {dir, plain_out, "--time \"$(printf '1:00:00\\rtouch pwned-t')\"", "--time '1:00:00\\r"},
      {newline_dir, plain_out, "", "the working directory '"},
      {dir, plain_out, "--partition gpu-HetJob", "'hetjob'"},
      {dir, dir + "/packjob-study", "", "'packjob'"},
      {dir, dir + "/back\\slash", "", "holds a backslash"},
  };
  for (const Case& c : cases) {
    INFO(c.names);
    CommandResult result;
    emit(c.cwd, trace, c.out, c.extra, &result);
    INFO(result.err);
    CHECK(result.exit_code == 2);
    CHECK(count_lines(result.err) == 1);
    CHECK_THAT(result.err, Catch::Contains(c.names));
    CHECK_FALSE(fs::exists(c.out));
  }

  // NUL cannot come through argv: the library refuses it.
  const SweepSpec spec = parse_sweep_spec(small_sweep_spec(trace), "spec.json");
  SlurmArrayRequest request;
  request.out_dir = plain_out;
  request.executable = schedlab_binary();
  request.working_dir = dir;
  request.partition = std::string("gpu\0x", 5);
  CHECK_THROWS_WITH(slurm_array_files(spec, request),
                    Catch::Contains("--partition 'gpu\\x00x': holds the control character 0x00"));
}

TEST_CASE("emit-slurm quotes hostile values for bash and for sbatch", "[workflows][sweep][slurm]") {
  const std::string dir = fresh_temp_dir("slurm-quoted");
  const std::string trace = write_small_trace(dir);
  // Names with every character bash or sbatch treat specially but the ones refused above.
  const std::string hostile = "a b;touch pwned1 $(touch pwned2) `touch pwned3` 'q' \"d\" #h %p&|<>";
  const std::string cwd = dir + "/wd " + hostile;
  const std::string out = dir + "/out " + hostile;
  fs::create_directories(cwd);
  const std::string partition = "p;touch pwned4 $(touch pwned5) \"x\" 'y' #z \\w";
  const std::string time_limit = "1:00:00 ; touch pwned6";
  CommandResult result;
  emit(cwd, trace, out,
       fmt::format("--partition {} --time {}", shell_quote(partition), shell_quote(time_limit)),
       &result);
  INFO(result.err);
  REQUIRE(result.exit_code == 0);

  const std::string sweep = read_text(out + "/sweep.sbatch");
  const std::string merge = read_text(out + "/merge.sbatch");
  INFO(sweep);
  // sbatch reads each #SBATCH line as exactly the one option it was written for.
  std::string out_pattern;
  for (const char c : out) out_pattern += c == '%' ? std::string("%%") : std::string(1, c);
  const std::vector<std::vector<std::string>> expected_header = {
      {"--job-name=schedlab-sweep"},
      {"--chdir=" + cwd},
      {"--output=" + out_pattern + "/logs/shard-%a.log"},
      {"--partition=" + partition},
      {"--time=" + time_limit},
      {"--array=1-1"},
      {"--cpus-per-task=1"}};
  CHECK(sbatch_lines(sweep) == expected_header);
  CHECK(sbatch_lines(merge) ==
        std::vector<std::vector<std::string>>{{"--job-name=schedlab-sweep-merge"},
                                              {"--chdir=" + cwd},
                                              {"--output=" + out_pattern + "/logs/merge.log"},
                                              {"--partition=" + partition},
                                              {"--time=" + time_limit}});

  // bash parses both scripts; run as the array task and the merge job (from another directory)
  // they pass the hostile names through as names and execute nothing of them.
  const std::string elsewhere = dir + "/elsewhere";
  fs::create_directories(elsewhere);
  for (const std::string& script : {out + "/sweep.sbatch", out + "/merge.sbatch"}) {
    INFO(script);
    CHECK(run_command("bash -n " + shell_quote(script)).exit_code == 0);
    const CommandResult ran = run_command(fmt::format("cd {} && SLURM_ARRAY_TASK_ID=1 bash {}",
                                                      shell_quote(elsewhere), shell_quote(script)));
    INFO(ran.err);
    CHECK(ran.exit_code == 0);
  }
  CHECK(fs::exists(out + "/shards/1/results.csv"));
  CHECK(fs::exists(out + "/results.csv"));

  // The submit commands in the script's comments, run with a stub sbatch, name the scripts.
  std::istringstream lines(sweep);
  std::vector<std::string> submits;
  for (std::string line; std::getline(lines, line);)
    if (line.starts_with("#   ")) submits.push_back(line.substr(4));
  REQUIRE(submits.size() == 2);
  // The submit commands printed on stdout are those same quoted commands.
  INFO(result.out);
  CHECK(result.out.find("\n  " + submits[0] + "\n") != std::string::npos);
  CHECK(result.out.find("\n  " + submits[1] + "\n") != std::string::npos);
  const std::string stub =
      fmt::format("cd {} && sbatch() {{ printf '%s\\n' \"$@\" >>args; echo 42; }} && {} && {}",
                  shell_quote(elsewhere), submits[0], submits[1]);
  const CommandResult stubbed = run_command("bash -c " + shell_quote(stub));
  INFO(stubbed.err);
  CHECK(stubbed.exit_code == 0);
  CHECK(read_text(elsewhere + "/args") == "--parsable\n" + out + "/sweep.sbatch\n" +
                                              "--dependency=afterany:42\n" + out +
                                              "/merge.sbatch\n");

  // No injected command ran, wherever it would have left its file.
  for (const auto& entry : fs::recursive_directory_iterator(dir))
    CHECK_FALSE(entry.path().filename().string().starts_with("pwned"));
}
