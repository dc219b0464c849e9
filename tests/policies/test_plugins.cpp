// Plug-in policies (include/schedlab/plugin.hpp): the example plug-in of
// examples/plugin-policy, loaded with --plugin, schedules as an independent reference of its
// order does; plug-ins of another version, files that are no plug-in and plug-ins that take a
// registered name are refused with one line and exit 2.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <vector>

#include <fmt/format.h>

#include "schedlab/error.hpp"
#include "schedlab/plugin.hpp"
#include "schedlab/policy_contract.hpp"
#include "schedlab/random.hpp"
#include "schedlab/version.hpp"
#include "support/builders.hpp"

using namespace schedlab;
using namespace schedlab::testing;

namespace fs = std::filesystem;

namespace {

const std::string kBin = SCHEDLAB_BINARY;
const std::string kSmallestFirst = SCHEDLAB_PLUGIN_SMALLEST_FIRST;
const std::string kTakenName = SCHEDLAB_PLUGIN_TAKEN_NAME;

struct RefJob {
  std::string id;
  std::int64_t submit_s = 0;
  int gpus = 0;
  std::int64_t duration_s = 0;
};

// Start times of a list scheduler ordered by (GPUs, submit time, trace order) on `capacity`
// interchangeable GPUs, events at one instant (finishes and submits) handled before the jobs
// are started; with `blocking`, the first job that does not fit stops the walk.
std::map<std::string, double> smallest_first_reference(const std::vector<RefJob>& jobs,
                                                       int capacity, bool blocking) {
  std::map<std::string, double> starts;
  std::vector<std::size_t> queue;
  std::vector<std::pair<std::int64_t, int>> running;  // (end, gpus)
  std::size_t next = 0;
  int free = capacity;
  while (next < jobs.size() || !queue.empty()) {
    std::int64_t now = next < jobs.size() ? jobs[next].submit_s : INT64_MAX;
    for (const auto& [end, gpus] : running) now = std::min(now, end);
    REQUIRE(now != INT64_MAX);
    std::erase_if(running, [&](const auto& r) {
      if (r.first > now) return false;
      free += r.second;
      return true;
    });
    while (next < jobs.size() && jobs[next].submit_s <= now) queue.push_back(next++);
    std::sort(queue.begin(), queue.end(), [&](std::size_t a, std::size_t b) {
      return std::tie(jobs[a].gpus, jobs[a].submit_s, a) <
             std::tie(jobs[b].gpus, jobs[b].submit_s, b);
    });
    std::vector<std::size_t> waiting;
    bool blocked = false;
    for (const std::size_t j : queue) {
      if (!blocked && jobs[j].gpus <= free) {
        free -= jobs[j].gpus;
        running.emplace_back(now + jobs[j].duration_s, jobs[j].gpus);
        starts[jobs[j].id] = static_cast<double>(now);
      } else {
        waiting.push_back(j);
        if (blocking) blocked = true;
      }
    }
    queue = waiting;
  }
  return starts;
}

std::vector<RefJob> random_jobs(Rng& rng, int count, int max_gpus) {
  std::vector<RefJob> jobs;
  std::int64_t submit_s = 0;
  for (int i = 0; i < count; ++i) {
    submit_s += rng.uniform_int(0, 40);
    jobs.push_back({fmt::format("j{}", i), submit_s, static_cast<int>(rng.uniform_int(1, max_gpus)),
                    rng.uniform_int(1, 500)});
  }
  return jobs;
}

std::string jobs_to_csv(const std::vector<RefJob>& jobs) {
  std::string csv = "id,submit_time,gpus,duration\n";
  for (const RefJob& job : jobs)
    csv += fmt::format("{},{},{},{}\n", job.id, job.submit_s, job.gpus, job.duration_s);
  return csv;
}

// A copy of the plug-in whose ABI record names schedlab `version` (same length as this one's).
std::string plugin_with_version(const std::string& dir, const std::string& version) {
  std::ifstream in(kSmallestFirst, std::ios::binary);
  std::string bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  const std::string record = std::string("schedlab-plugin-abi:version=") + SCHEDLAB_VERSION_STRING;
  const std::size_t at = bytes.find(record);
  REQUIRE(at != std::string::npos);
  REQUIRE(version.size() == std::string(SCHEDLAB_VERSION_STRING).size());
  bytes.replace(at + record.size() - version.size(), version.size(), version);
  const std::string path = dir + "/libold.so";
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

// The bytes of the smallest-first plug-in.
std::string plugin_bytes() {
  std::ifstream in(kSmallestFirst, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Writes `bytes` to DIR/NAME and returns the path.
std::string write_plugin(const std::string& dir, const std::string& name,
                         const std::string& bytes) {
  const std::string path = dir + "/" + name;
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

// `value` written over the `size` bytes at `offset` (little-endian, as on the hosts we run on).
void poke(std::string& bytes, std::size_t offset, std::uint64_t value, std::size_t size) {
  REQUIRE(offset + size <= bytes.size());
  for (std::size_t i = 0; i < size; ++i) bytes[offset + i] = static_cast<char>(value >> (8 * i));
}

std::uint64_t peek(const std::string& bytes, std::size_t offset, std::size_t size) {
  std::uint64_t value = 0;
  for (std::size_t i = 0; i < size; ++i)
    value |= static_cast<std::uint64_t>(static_cast<unsigned char>(bytes[offset + i])) << (8 * i);
  return value;
}

}  // namespace

TEST_CASE("a plug-in policy schedules as an independent reference of its order", "[plugins]") {
  const std::string dir = fresh_temp_dir("plugin-reference");
  Rng rng(1414);
  int compared = 0;
  for (int round = 0; round < 12; ++round) {
    const bool blocking = round % 2 == 0;
    const int capacity = round < 6 ? 8 : 16;
    const std::vector<RefJob> jobs = random_jobs(rng, 150, capacity);
    const std::string trace = fmt::format("{}/t{}.csv", dir, round);
    std::ofstream(trace) << jobs_to_csv(jobs);
    const std::string out = fmt::format("{}/run{}", dir, round);
    const CommandResult run = run_command(
        fmt::format("{} run -q --reproducible --plugin {} -p smallest-first --param blocking={} "
                    "-t {} -c 1x{}:V100 -o {}",
                    kBin, kSmallestFirst, blocking ? "true" : "false", trace, capacity, out));
    INFO(run.err);
    REQUIRE(run.exit_code == 0);
    const auto starts = start_times(read_text(out + "/jobs.csv"));
    const auto expected = smallest_first_reference(jobs, capacity, blocking);
    REQUIRE(starts.size() == jobs.size());
    for (const RefJob& job : jobs) {
      INFO(fmt::format("round {} job {}", round, job.id));
      CHECK(starts.at(job.id) == expected.at(job.id));
    }
    ++compared;
  }
  CHECK(compared == 12);
}

TEST_CASE("plug-in policies are listed, compared and found only when loaded", "[plugins]") {
  const CommandResult listed = run_command(kBin + " policies --plugin " + kSmallestFirst);
  REQUIRE(listed.exit_code == 0);
  CHECK_THAT(listed.out, Catch::Contains("smallest-first") &&
                             Catch::Contains("[plug-in " + kSmallestFirst + "]") &&
                             Catch::Contains("--param blocking=true"));
  std::size_t marked = 0;
  for (std::size_t at = listed.out.find("[plug-in "); at != std::string::npos;
       at = listed.out.find("[plug-in ", at + 1))
    ++marked;
  CHECK(marked == 2);  // smallest-first and smallest-first-preemptive

  const std::string dir = fresh_temp_dir("plugin-cli");
  const std::string trace = dir + "/t.csv";
  std::ofstream(trace) << "id,submit_time,gpus,duration\nrunning,0,2,100\nbig,10,4,50\n"
                          "small,20,1,30\ntiny,30,1,30\n";
  const CommandResult unknown =
      run_command(kBin + " run -q -p smallest-first -t " + trace + " -c 1x4:V100");
  CHECK(unknown.exit_code == 2);
  CHECK_THAT(unknown.err, Catch::Contains("smallest-first"));

  // Loading one plug-in twice is loading it once.
  const CommandResult compared =
      run_command(kBin + " compare --plugin " + kSmallestFirst + " --plugin " + kSmallestFirst +
                  " --policies fifo,smallest-first -t " + trace + " -c 1x4:V100 --json");
  INFO(compared.err);
  REQUIRE(compared.exit_code == 0);
  CHECK_THAT(compared.out, Catch::Contains("smallest-first") && Catch::Contains("fifo"));

  const CommandResult swept =
      run_command(kBin + " sweep -q --reproducible --plugin " + kSmallestFirst +
                  " -p smallest-first -p fifo -t " + trace + " -c 1x4:V100 -o " + dir + "/sweep");
  INFO(swept.err);
  REQUIRE(swept.exit_code == 0);
  const std::string results = read_text(dir + "/sweep/results.csv");
  CHECK_THAT(results, Catch::Contains("smallest-first") && Catch::Contains("fifo"));
}

TEST_CASE("plug-ins of another version, non-plug-ins and taken names are refused", "[plugins]") {
  const std::string dir = fresh_temp_dir("plugin-refused");
  const std::string trace = dir + "/t.csv";
  std::ofstream(trace) << "id,submit_time,gpus,duration\na,0,1,10\n";
  const auto run_with = [&](const std::string& plugin) {
    return run_command(kBin + " run -q --plugin " + plugin + " -p fifo -t " + trace +
                       " -c 1x4:V100 -o " + dir + "/out");
  };
  const auto one_line = [](const std::string& err) {
    return std::count(err.begin(), err.end(), '\n') == 1;
  };

  const CommandResult old = run_with(plugin_with_version(dir, "0.0.9"));
  CHECK(old.exit_code == 2);
  CHECK(one_line(old.err));
  CHECK_THAT(old.err, Catch::Contains("built against schedlab 0.0.9, this is schedlab " +
                                      std::string(SCHEDLAB_VERSION_STRING)));

  const CommandResult text = run_with(trace);
  CHECK(text.exit_code == 2);
  CHECK(one_line(text.err));
  CHECK_THAT(text.err, Catch::Contains("--plugin " + trace + ": not a schedlab plug-in"));

  const CommandResult missing = run_with(dir + "/nothing.so");
  CHECK(missing.exit_code == 2);
  CHECK(one_line(missing.err));
  CHECK_THAT(missing.err, Catch::Contains("--plugin " + dir + "/nothing.so: "));

  const CommandResult taken = run_with(kTakenName);
  CHECK(taken.exit_code == 2);
  CHECK(one_line(taken.err));
  CHECK_THAT(taken.err, Catch::Contains("registers policy 'fifo', a name that is taken"));

  CHECK_FALSE(fs::exists(dir + "/out"));
}

TEST_CASE("check-policy: the engine contract, kept and broken", "[plugins][contract]") {
  const CommandResult kept = run_command(kBin + " check-policy --plugin " + kSmallestFirst +
                                         " -p smallest-first --never-preempts");
  INFO(kept.err);
  CHECK(kept.exit_code == 0);
  CHECK(kept.out == "smallest-first: contract kept in 50 runs (each made twice)\n");

  const CommandResult builtin = run_command(kBin + " check-policy -p preemptive");
  CHECK(builtin.exit_code == 0);
  CHECK(builtin.out == "preemptive: contract kept in 50 runs (each made twice)\n");
  // preemptive preempts: declared non-preemptive, it breaks the contract where it preempts.
  const CommandResult preempts = run_command(kBin + " check-policy -p preemptive --never-preempts");
  CHECK(preempts.exit_code == 1);
  CHECK_THAT(preempts.out, Catch::StartsWith("preemptive: contract broken in ") &&
                               Catch::Contains("preemptions from a policy declared "
                                               "non-preemptive"));

  const std::string broken = kBin + " check-policy --plugin " + SCHEDLAB_PLUGIN_BROKEN;
  const CommandResult nondeterministic = run_command(broken + " -p test-nondeterministic");
  CHECK(nondeterministic.exit_code == 1);
  CHECK_THAT(nondeterministic.out,
             Catch::Contains("variant 'defaults': a second run gives another jobs.csv"));
  const CommandResult illegal = run_command(broken + " -p test-illegal-start");
  CHECK(illegal.exit_code == 1);
  CHECK_THAT(illegal.out,
             Catch::StartsWith("test-illegal-start: contract broken in 50 of 50 runs"));
  CHECK_THAT(illegal.out, Catch::Contains("test-illegal-start"));

  const CommandResult unknown = run_command(kBin + " check-policy -p no-such-policy");
  CHECK(unknown.exit_code == 2);
  CHECK_THAT(unknown.err, Catch::Contains("no-such-policy"));
}

TEST_CASE("the library's contract check passes the built-in policies", "[plugins][contract]") {
  for (const std::string policy : {"fifo", "easy-backfill", "conservative-backfill"}) {
    PolicyContractOptions options;
    options.never_preempts = true;
    const PolicyContractReport report = check_policy_contract(policy, options);
    INFO(format_policy_contract_report(report));
    CHECK(report.kept());
    CHECK(report.runs == 50);
  }
  const PolicyContractReport quota = check_policy_contract("quota");
  INFO(format_policy_contract_report(quota));
  CHECK(quota.kept());
  CHECK_THROWS_AS(check_policy_contract("fifo", {{{"depth", "3"}}, false}), ConfigError);
}

TEST_CASE("a plug-in placement strategy is listed and places jobs", "[plugins]") {
  const std::string plugin = SCHEDLAB_PLUGIN_LAST_FIT;
  const CommandResult listed = run_command(kBin + " policies --plugin " + plugin);
  REQUIRE(listed.exit_code == 0);
  CHECK_THAT(listed.out, Catch::Contains("  last-fit ") &&
                             Catch::Contains("(a test plug-in) [plug-in " + plugin + "]"));
  const std::string dir = fresh_temp_dir("plugin-placement");
  std::ofstream(dir + "/t.csv") << "id,submit_time,gpus,duration\na,0,1,10\nb,0,2,10\nc,5,4,10\n";
  const CommandResult run =
      run_command(kBin + " run -q --plugin " + plugin + " -p fifo --placement last-fit -t " + dir +
                  "/t.csv -c 2x4:V100 -o " + dir + "/out");
  INFO(run.err);
  REQUIRE(run.exit_code == 0);
  // a and b go onto node 1 (GPUs 4-7), lowest free GPUs first; c then fits only on node 0.
  const std::string jobs = read_text(dir + "/out/jobs.csv");
  CHECK(jobs_column(jobs, "allocated_resources") == std::vector<std::string>{"4", "5-6", "0-3"});
}

TEST_CASE("smallest-first-preemptive: hand-worked schedules and the contract", "[plugins]") {
  const std::string dir = fresh_temp_dir("plugin-preemptive");
  // One 4-GPU node; defaults: a checkpoint at preemption, 30 s restart overhead. big (4 GPUs,
  // 100 s) starts at 0. At 10 small (1 GPU) preempts it and runs until 20; big restarts then
  // with 90 s of work left after 30 s of overhead and ends at 140. same (4 GPUs, submitted at
  // 15) never preempts big, its own size: it starts when big ends and ends at 190.
  std::ofstream(dir + "/t.csv") << "id,submit_time,gpus,duration\nbig,0,4,100\nsmall,10,1,10\n"
                                   "same,15,4,50\n";
  const auto run = [&](const std::string& params, const std::string& out) {
    const CommandResult r =
        run_command(kBin + " run -q --plugin " + kSmallestFirst + " -p smallest-first-preemptive " +
                    params + " -t " + dir + "/t.csv -c 1x4:V100 --no-walltime-kill -o " + out);
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    return read_text(out + "/jobs.csv");
  };
  const std::string now = run("", dir + "/now");
  CHECK(jobs_column(now, "finish_time") ==
        std::vector<std::string>{"140.000", "20.000", "190.000"});
  CHECK(jobs_column(now, "preemptions") == std::vector<std::string>{"1", "0", "0"});
  CHECK(start_times(now).at("small") == 10.0);
  // With min_runtime=30 big is protected until 30: small waits and preempts it then, running
  // until 40; big restarts at 40 with 70 s left after 30 s of overhead: it ends at 140 again.
  const std::string later = run("--param min_runtime=30", dir + "/later");
  CHECK(jobs_column(later, "finish_time") ==
        std::vector<std::string>{"140.000", "40.000", "190.000"});
  CHECK(jobs_column(later, "preemptions") == std::vector<std::string>{"1", "0", "0"});
  CHECK(start_times(later).at("small") == 30.0);

  const CommandResult contract = run_command(kBin + " check-policy --plugin " + kSmallestFirst +
                                             " -p smallest-first-preemptive");
  CHECK(contract.exit_code == 0);
  CHECK(contract.out == "smallest-first-preemptive: contract kept in 50 runs (each made twice)\n");
}

TEST_CASE("truncated or corrupt plug-ins are refused before they are loaded", "[plugins]") {
  const std::string dir = fresh_temp_dir("plugin-corrupt");
  const std::string trace = dir + "/t.csv";
  std::ofstream(trace) << "id,submit_time,gpus,duration\na,0,1,10\n";
  const std::string bytes = plugin_bytes();
  // 64-bit little-endian ELF (the hosts the tests run on): header field offsets of Elf64_Ehdr.
  REQUIRE(bytes.size() > 64);
  REQUIRE(bytes.compare(0, 4,
                        "\x7f"
                        "ELF") == 0);
  REQUIRE(bytes[4] == 2);
  const std::size_t record_end = bytes.find('\0', bytes.find("schedlab-plugin-abi:"));
  REQUIRE(record_end != std::string::npos);
  const std::uint64_t phoff = peek(bytes, 32, 8);
  const std::uint64_t shoff = peek(bytes, 40, 8);
  const std::uint64_t phnum = peek(bytes, 56, 2);
  // The first PT_LOAD program header whose segment holds file bytes.
  std::size_t load = 0;
  for (std::uint64_t i = 0; i < phnum && load == 0; ++i) {
    const std::size_t at = phoff + i * 56;
    if (peek(bytes, at, 4) == 1 && peek(bytes, at + 32, 8) > 0) load = at;
  }
  REQUIRE(load != 0);

  struct Case {
    std::string name;
    std::string bytes;
    std::string why;
  };
  std::vector<Case> cases;
  // Cut right after the ABI record: the record is found, the rest of the library is not there.
  cases.push_back({"cut.so", bytes.substr(0, record_end + 1), "truncated or corrupt: "});
  if (bytes.substr(0, bytes.size() / 2).find("schedlab-plugin-abi:") != std::string::npos)
    cases.push_back({"half.so", bytes.substr(0, bytes.size() / 2), "truncated or corrupt: "});
  std::string segment = bytes;
  poke(segment, load + 32, bytes.size() + 4096, 8);  // p_filesz: past the end of the file
  cases.push_back({"segment.so", segment, "the PT_LOAD segment "});
  std::string sections = bytes;
  poke(sections, 40, bytes.size() - 16, 8);  // e_shoff: the table starts 16 bytes before the end
  cases.push_back({"sections.so", sections, "the section header table ends at byte"});
  std::string headers = bytes;
  poke(headers, 56, 0xfff0, 2);  // e_phnum
  cases.push_back({"headers.so", headers, "the program header table ends at byte"});
  std::string machine = bytes;
  poke(machine, 18, peek(bytes, 18, 2) == 62 ? 183 : 62, 2);  // e_machine: AArch64 <-> x86-64
  cases.push_back({"machine.so", machine, "built for "});
  std::string elf_class = bytes;
  elf_class[4] = 1;  // ELFCLASS32
  cases.push_back({"class.so", elf_class, "an ELF file of class 1"});
  std::string executable = bytes;
  poke(executable, 16, 2, 2);  // e_type: ET_EXEC
  cases.push_back({"exec.so", executable, "not a shared library (ELF type 2)"});
  std::string text = "#!/bin/sh\n";
  text += bytes.substr(bytes.find("schedlab-plugin-abi:"), 80);
  cases.push_back({"text.so", text, "not a loadable shared library: not an ELF file"});
  CHECK(shoff != 0);

  for (const Case& c : cases) {
    INFO(c.name);
    const std::string path = write_plugin(dir, c.name, c.bytes);
    const CommandResult run = run_command(kBin + " run -q --plugin " + path + " -p fifo -t " +
                                          trace + " -c 1x4:V100 -o " + dir + "/out");
    INFO(run.err);
    CHECK(run.exit_code == 2);
    CHECK(std::count(run.err.begin(), run.err.end(), '\n') == 1);
    CHECK_THAT(run.err,
               Catch::StartsWith("--plugin " + path + ": not a loadable shared library: ") &&
                   Catch::Contains(c.why));
  }
  CHECK_FALSE(fs::exists(dir + "/out"));
}

TEST_CASE("an ABI record followed by other bytes is refused as malformed", "[plugins]") {
  const std::string dir = fresh_temp_dir("plugin-record");
  std::string bytes = plugin_bytes();
  const std::size_t at = bytes.find("schedlab-plugin-abi:");
  REQUIRE(at != std::string::npos);
  const std::size_t end = bytes.find('\0', at);
  REQUIRE(end != std::string::npos);
  bytes[end] = 'x';  // the record runs on into the bytes after it, up to the next NUL
  const std::string path = write_plugin(dir, "librecord.so", bytes);
  const CommandResult run = run_command(kBin + " policies --plugin " + path);
  INFO(run.err);
  CHECK(run.exit_code == 2);
  CHECK(std::count(run.err.begin(), run.err.end(), '\n') == 1);
  CHECK_THAT(run.err, Catch::StartsWith("--plugin " + path + ": malformed ABI record '") &&
                          Catch::Contains(std::string("(this schedlab writes '") +
                                          SCHEDLAB_PLUGIN_ABI_RECORD + "')"));
  CHECK_THAT(run.err, !Catch::Contains("this schedlab uses"));
}

TEST_CASE("a plug-in of an earlier registration layout is refused naming both layouts",
          "[plugins]") {
  const std::string dir = fresh_temp_dir("plugin-layout");
  std::string bytes = plugin_bytes();
  const std::string field = "registration=" SCHEDLAB_PLUGIN_REGISTRATION_LAYOUT ";";
  const std::size_t at = bytes.find(SCHEDLAB_PLUGIN_ABI_RECORD);
  REQUIRE(at != std::string::npos);
  const std::size_t field_at = bytes.find(field, at);
  REQUIRE(field_at == at + std::string(SCHEDLAB_PLUGIN_ABI_RECORD).size() - field.size());
  // The record as written before the field existed: version and C++ library ABI only.
  bytes.replace(field_at, field.size(), std::string(field.size(), '\0'));
  const std::string path = write_plugin(dir, "liblayout1.so", bytes);
  const CommandResult run = run_command(kBin + " policies --plugin " + path);
  CHECK(run.exit_code == 2);
  CHECK(run.err == "--plugin " + path +
                       ": built with registration layout 1, this schedlab uses layout " +
                       SCHEDLAB_PLUGIN_REGISTRATION_LAYOUT +
                       " (include/schedlab/plugin.hpp): rebuild the plug-in against this "
                       "schedlab\n");
}
