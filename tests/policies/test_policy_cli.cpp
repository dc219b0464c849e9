// The command line around policies: `schedlab policies` lists every policy with its
// parameters, bad parameters exit 2, and `schedlab compare` prints one row per policy as a
// table, JSON or CSV.
#include <catch2/catch.hpp>

#include <fstream>

#include <nlohmann/json.hpp>

#include "policies/policy_support.hpp"

using namespace schedlab;
using namespace schedlab::testing;

namespace {

std::string write_trace(const std::string& csv) {
  const std::string path = fresh_temp_dir("policy-cli") + "/trace.csv";
  std::ofstream(path) << csv;
  return path;
}

const char* kTrace =
    "id,submit_time,gpus,duration,priority\n"
    "a,0,3,100,0\n"
    "b,1,2,100,1\n"
    "c,2,4,100,2\n"
    "d,3,1,300,0\n";

std::string cli() {
  return SCHEDLAB_BINARY;
}

}  // namespace

TEST_CASE("schedlab policies lists every policy with its parameters and defaults",
          "[policies][cli]") {
  const auto r = run_command(cli() + " policies");
  REQUIRE(r.exit_code == 0);
  for (const auto& info : registered_policies()) {
    CHECK(r.out.find("  " + info.name + " ") != std::string::npos);
    for (const auto& p : info.params)
      CHECK(r.out.find("--param " + p.key + "=" + p.default_value) != std::string::npos);
  }
  for (const char* placement : {"pack", "spread", "first-fit"})
    CHECK(r.out.find(std::string("  ") + placement + " ") != std::string::npos);
}

TEST_CASE("bad policy parameters exit 2 with a clear message", "[policies][cli]") {
  const std::string trace = write_trace(kTrace);
  auto r = run_command(cli() + " run --trace " + trace +
                       " --cluster 1x4 --policy las --param thresholds=9,3");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("--param thresholds=9,3: policy 'las' expects") != std::string::npos);
  r = run_command(cli() + " run --trace " + trace +
                  " --cluster 1x4 --policy priority --param agging=5");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find(
            "has no parameter 'agging'; did you mean 'aging'? (parameters: blocking, aging)") !=
        std::string::npos);
  r = run_command(cli() + " compare --trace " + trace +
                  " --cluster 1x4 --policies fifo,sjf --param sjf:blocking=perhaps");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("expects true or false") != std::string::npos);
  r = run_command(cli() + " compare --trace " + trace +
                  " --cluster 1x4 --policies fifo --param sjf:blocking=false");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("policy 'sjf' is not in --policies") != std::string::npos);
  r = run_command(cli() + " compare --trace " + trace + " --cluster 1x4 --policies fifo,nope");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("unknown policy 'nope'") != std::string::npos);
}

TEST_CASE("schedlab compare prints a table, JSON and CSV of the same runs", "[policies][cli]") {
  const std::string trace = write_trace(kTrace);
  const std::string base = cli() + " compare --trace " + trace +
                           " --cluster 1x4 --reproducible --policies "
                           "fifo,easy-backfill,conservative-backfill,preemptive "
                           "--param preemptive:min_runtime=5";
  const auto table = run_command(base);
  REQUIRE(table.exit_code == 0);
  CHECK(table.out.find("wait_s.mean") != std::string::npos);
  CHECK(table.out.find("preemptive(min_runtime=5)") != std::string::npos);

  const auto json_run = run_command(base + " --json");
  REQUIRE(json_run.exit_code == 0);
  const auto json = nlohmann::json::parse(json_run.out);
  REQUIRE(json["runs"].size() == 4);
  CHECK(json["runs"][1]["policy"] == "easy-backfill");
  CHECK(json["runs"][3]["params"]["min_runtime"] == "5");
  // Mean waits by hand (see test_backfill.cpp, same trace): FIFO a 0, b 99, c 198, d 297;
  // EASY b 99, c 301, d 0; conservative b 99, c 198, d 297.
  CHECK(json["runs"][0]["metrics"]["wait_s.mean"].get<double>() == Approx(148.5));
  CHECK(json["runs"][1]["metrics"]["wait_s.mean"].get<double>() == Approx(100.0));
  CHECK(json["runs"][2]["metrics"]["wait_s.mean"].get<double>() == Approx(148.5));
  CHECK(json["runs"][0]["summary"]["policy"] == "fifo");

  const auto csv = run_command(base + " --csv");
  REQUIRE(csv.exit_code == 0);
  CHECK(csv.out.rfind("policy,params,wait_s.mean,wait_s.p95,queued_s.mean,jct_s.mean,", 0) == 0);
  CHECK(csv.out.find("\npreemptive,min_runtime=5,") != std::string::npos);
  CHECK(csv.out.find("\neasy-backfill,,100.000000,") != std::string::npos);

  const std::string out_dir = fresh_temp_dir("compare-out");
  const auto written = run_command(base + " --out " + out_dir);
  REQUIRE(written.exit_code == 0);
  CHECK(read_text(out_dir + "/compare.csv") == csv.out);
  CHECK(read_text(out_dir + "/las/summary.json").empty());  // not compared
  CHECK(read_text(out_dir + "/easy-backfill/jobs.csv").find("\nd,3.000,1,") != std::string::npos);
}

TEST_CASE("schedlab compare --by: who wins and who pays, per job class", "[policies][cli]") {
  // The trace above on 1x4: FIFO waits a 0, b 99, c 198, d 297; EASY backfills d (1 GPU, 300 s)
  // at once and c waits 301. Classes by size: "1" holds d, "2-4" holds a (3), b (2), c (4).
  const std::string trace = write_trace(kTrace);
  const std::string dir = fresh_temp_dir("compare-by");
  const std::string base = cli() + " compare --trace " + trace +
                           " --cluster 1x4 --reproducible -q --policies fifo,easy-backfill";
  const auto json_run = run_command(base + " --by size,duration --duration-classes 200s --json");
  INFO(json_run.err);
  REQUIRE(json_run.exit_code == 0);
  const auto json = nlohmann::json::parse(json_run.out);
  const auto& fifo = json["runs"][0]["summary"];
  const auto& easy = json["runs"][1]["summary"];
  CHECK(fifo["by_size"]["1"]["jobs"] == 1);
  CHECK(fifo["by_size"]["1"]["wait_s"]["mean"].get<double>() == 297.0);
  CHECK(fifo["by_size"]["2-4"]["jobs"] == 3);
  CHECK(fifo["by_size"]["2-4"]["wait_s"]["mean"].get<double>() == 99.0);
  CHECK(fifo["by_size"]["5-8"]["jobs"] == 0);
  CHECK_FALSE(fifo["by_size"]["5-8"].contains("wait_s"));
  // EASY: the 1-GPU job wins (0 s), the larger ones pay ((0 + 99 + 301) / 3).
  CHECK(easy["by_size"]["1"]["wait_s"]["mean"].get<double>() == 0.0);
  CHECK(easy["by_size"]["2-4"]["wait_s"]["mean"].get<double>() == Approx(133.333).margin(1e-3));
  // Work bounds given: a, b and c (100 s) are "<=200s", d (300 s) is ">200s".
  CHECK(easy["by_duration"]["<=200s"]["jobs"] == 3);
  CHECK(easy["by_duration"][">200s"]["wait_s"]["mean"].get<double>() == 0.0);
  CHECK(fifo["by_duration"][">200s"]["bounded_slowdown"]["mean"].get<double>() ==
        Approx(597.0 / 300.0).margin(1e-6));

  // The table lists the classes that hold jobs, a row per policy; -o writes the same as CSV.
  const auto table = run_command(base + " --by size -o " + dir + "/out");
  REQUIRE(table.exit_code == 0);
  CHECK(table.out.find("by size:") != std::string::npos);
  CHECK(table.out.find("5-8") == std::string::npos);
  CHECK(read_text(dir + "/out/compare-by-size.csv") ==
        "class,policy,params,jobs,wait_s.mean,wait_s.p95,queued_s.mean,jct_s.mean,"
        "bounded_slowdown.mean\n"
        "1,fifo,,1,297.000000,297.000000,297.000000,597.000000,1.990000\n"
        "1,easy-backfill,,1,0.000000,0.000000,0.000000,300.000000,1.000000\n"
        "2-4,fifo,,3,99.000000,188.100000,99.000000,199.000000,1.990000\n"
        "2-4,easy-backfill,,3,133.333000,280.800000,133.333000,233.333000,2.333333\n");

  for (const auto& [flags, message] : std::vector<std::pair<std::string, std::string>>{
           {"--by size,colour", "--by 'size,colour': expected size, duration, tenant or user\n"},
           {"--by size --size-classes 4,2",
            "--size-classes '4,2': expected strictly ascending bounds\n"},
           {"--by duration --duration-classes 1h,x",
            "--duration-classes '1h,x': expected times > 0 (seconds, or with a unit: 90s, 30m, "
            "12h, 2d) separated by ',', got 'x'\n"}}) {
    const auto bad = run_command(base + " " + flags);
    CHECK(bad.exit_code == 2);
    CHECK(bad.err == message);
    CHECK(bad.out.empty());
  }
}
