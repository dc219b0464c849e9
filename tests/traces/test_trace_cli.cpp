// schedlab validate / convert / gen / run --filter end to end: outputs, messages, exit codes.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "support/builders.hpp"
#include "traces/trace_test_util.hpp"

using namespace schedlab;
using namespace schedlab::testing;

namespace {

const std::string kBin = SCHEDLAB_BINARY;
const std::string kTraces = std::string(SCHEDLAB_SOURCE_DIR) + "/traces/";

}  // namespace

TEST_CASE("validate prints statistics, a bad row is one FILE:LINE line and exit 2",
          "[traces][cli]") {
  const CommandResult ok = run_command(kBin + " validate " + kTraces + "itp-cluster10.csv");
  REQUIRE(ok.exit_code == 0);
  CHECK(ok.out.find("format                itp\n") != std::string::npos);
  CHECK(ok.out.find("jobs                  260\n") != std::string::npos);
  CHECK(ok.err ==
        "schedlab: " + kTraces + "itp-cluster10.csv: read as 'itp' (detected from its content)\n");

  const CommandResult json =
      run_command(kBin + " validate --json " + kTraces + "alibaba-openb-pods-2000.csv.gz");
  REQUIRE(json.exit_code == 0);
  const auto stats = nlohmann::json::parse(json.out);
  CHECK(stats["format"] == "alibaba-openb");
  const std::uint64_t jobs = stats["jobs"].get<std::uint64_t>();
  std::uint64_t skipped = 0;
  for (const auto& [reason, n] : stats["skipped"].items()) skipped += n.get<std::uint64_t>();
  CHECK(jobs + skipped == 2000);
  CHECK(stats["peak_gpu_demand"]["gpus"].get<int>() > 0);

  const std::string dir = fresh_temp_dir("validate");
  write_text(dir + "/bad.csv", "job_id,submission_time,duration,num_gpu\na,1,10,1\nb,2,ten,1\n");
  const CommandResult bad = run_command(kBin + " validate " + dir + "/bad.csv");
  CHECK(bad.exit_code == 2);
  CHECK(bad.out.empty());
  CHECK(bad.err == dir + "/bad.csv:3: column 'duration': expected seconds >= 0, got 'ten'\n");
  const CommandResult format = run_command(kBin + " validate --format nope " + dir + "/bad.csv");
  CHECK(format.exit_code == 2);
  CHECK(format.err.find(
            "--format: unknown trace format 'nope' (known: auto, acme, alibaba-openb, alibaba-pai, "
            "helios, itp, native, philly-csv, philly-json, philly-vc, swf)") != std::string::npos);
  // A bad --cluster is found before the trace is read: its message is the only line.
  const CommandResult cluster =
      run_command(kBin + " validate " + kTraces + "itp-cluster10.csv --cluster 8x8,bogus");
  CHECK(cluster.exit_code == 2);
  CHECK(cluster.out.empty());
  CHECK(cluster.err ==
        "--cluster '8x8,bogus': group 'bogus': expected NODESxGPUS[:TYPE], e.g. 64x8:A100\n");
}

TEST_CASE("convert to native and SWF, the results read back with the same statistics",
          "[traces][cli]") {
  const std::string dir = fresh_temp_dir("convert");
  const std::string in = kTraces + "nasa-ipsc-1993-week1.swf.gz";
  REQUIRE(run_command(kBin + " convert " + in + " --to native -o " + dir + "/week.csv").exit_code ==
          0);
  REQUIRE(run_command(kBin + " convert " + dir + "/week.csv --to swf -o " + dir + "/week.swf")
              .exit_code == 0);
  const Trace original = read_trace(in);
  const Trace native = read_trace(dir + "/week.csv");
  const Trace swf = read_trace(dir + "/week.swf");
  REQUIRE(native.jobs.size() == original.jobs.size());
  REQUIRE(swf.jobs.size() == original.jobs.size());
  for (std::size_t i = 0; i < original.jobs.size(); ++i) {
    CHECK(native.jobs[i].id == original.jobs[i].id);
    CHECK(swf.jobs[i].submit_ms == original.jobs[i].submit_ms);
    CHECK(swf.jobs[i].duration_ms == original.jobs[i].duration_ms);
    CHECK(swf.jobs[i].gpus == original.jobs[i].gpus);
    CHECK(swf.strings.str(swf.jobs[i].user) == original.strings.str(original.jobs[i].user));
  }
  // Bad --to: exit 2 and no output file.
  const CommandResult bad =
      run_command(kBin + " convert " + in + " --to json -o " + dir + "/x.json");
  CHECK(bad.exit_code == 2);
  CHECK(bad.err == "--to 'json': expected native or swf\n");
  CHECK_FALSE(std::filesystem::exists(dir + "/x.json"));
  // A filtered slice, gzip-compressed.
  const CommandResult slice =
      run_command(kBin + " convert " + kTraces + "itp-cluster10.csv --to native -o " + dir +
                  "/slice.csv.gz --filter limit=10");
  REQUIRE(slice.exit_code == 0);
  CHECK(read_trace(dir + "/slice.csv.gz").jobs.size() == 10);
}

TEST_CASE("gen is seeded, --like fits a real trace", "[traces][cli]") {
  const std::string dir = fresh_temp_dir("gen");
  const std::string args =
      " gen --jobs 300 --seed 4 --arrival bursty --users 5 --priority-mix 0:0.5,3:0.5";
  REQUIRE(run_command(kBin + args + " -o " + dir + "/a.csv").exit_code == 0);
  const CommandResult stdout_run = run_command(kBin + args);
  REQUIRE(stdout_run.exit_code == 0);
  CHECK(read_text(dir + "/a.csv") == stdout_run.out);
  const Trace a = read_trace(dir + "/a.csv");
  CHECK(a.jobs.size() == 300);
  CHECK(stdout_run.out.starts_with("id,submit_time,gpus,duration,priority,user\n"));
  // Out-of-range values are refused before anything is generated: exit 2, nothing written.
  for (const auto& [flags, message] : std::vector<std::pair<std::string, std::string>>{
           {"--jobs -1", "schedlab: --jobs: Value -1 not in range 1 to 50000000\n"},
           {"--gang-mix 99999999999:1",
            "--gang-mix '99999999999:1': item '99999999999:1': expected VALUE:WEIGHT with VALUE "
            "in 1..1000000000 and WEIGHT >= 0, e.g. 1:0.6,8:0.4\n"}}) {
    const CommandResult refused = run_command(kBin + " gen " + flags + " -o " + dir + "/no.csv");
    INFO(flags);
    CHECK(refused.exit_code == 2);
    CHECK(refused.err == message);
    CHECK_FALSE(std::filesystem::exists(dir + "/no.csv"));
  }

  const CommandResult like = run_command(kBin + " gen --like " + kTraces +
                                         "itp-cluster10.csv --seed 2 -o " + dir + "/like.csv");
  REQUIRE(like.exit_code == 0);
  CHECK(like.err.find("fitted to " + kTraces +
                      "itp-cluster10.csv (260 jobs): mean inter-arrival") != std::string::npos);
  const Trace fitted = read_trace(dir + "/like.csv");
  CHECK(fitted.jobs.size() == 260);
  const CommandResult empirical = run_command(kBin + " gen --duration empirical --jobs 5");
  CHECK(empirical.exit_code == 2);
  CHECK(empirical.err == "--duration empirical: needs --like TRACE to draw durations from\n");
}

TEST_CASE("run: --filter, inventory clusters, status in jobs.csv, trace in summary.json",
          "[traces][cli]") {
  const std::string dir = fresh_temp_dir("run");
  const CommandResult run =
      run_command(kBin + " run --trace " + kTraces +
                  "alibaba-openb-pods-2000.csv.gz --cluster alibaba-openb:" + kTraces +
                  "alibaba-openb-gpu-nodes.csv --filter limit=200 --reproducible --json -o " + dir);
  REQUIRE(run.exit_code == 0);
  const auto summary = nlohmann::ordered_json::parse(read_text(dir + "/summary.json"));
  CHECK(summary["trace"]["path"] == kTraces + "alibaba-openb-pods-2000.csv.gz");
  CHECK(summary["trace"]["format"] == "alibaba-openb");
  // Reader skips first, then filters, in first-seen order.
  CHECK(summary["trace"]["skipped"].dump() ==
        R"j({"CPU-only (num_gpu 0)":275,"never scheduled (no scheduled_time)":144,)j"
        R"j("filtered out: limit":1381})j");
  CHECK(summary["jobs"]["submitted"] == 200);
  CHECK(summary["cluster"]["gpus"] == 6212);
  const std::string jobs = read_text(dir + "/jobs.csv");
  CHECK(jobs.substr(0, jobs.find('\n'))
            .ends_with(",lost_gpu_seconds,status,tenant,gpu_type,queued_time"));
  const auto statuses = jobs_column(jobs, "status");
  REQUIRE(statuses.size() == 200);
  for (const auto& s : statuses) CHECK((s == "Running" || s == "Succeeded" || s == "Failed"));
  CHECK(run.err.find("left out:") != std::string::npos);
}
