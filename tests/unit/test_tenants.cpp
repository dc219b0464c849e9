// Tenants: the --tenants file and shorthands, their binding to a trace and a cluster, bad input,
// and the per-tenant metrics recomputed from the run's own files.
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <regex>
#include <sstream>

#include <fmt/format.h>
#include <catch2/catch.hpp>

#include "policies/policy_support.hpp"
#include "schedlab/error.hpp"
#include "schedlab/tenants.hpp"
#include "schedlab/trace.hpp"

using namespace schedlab;
using namespace schedlab::testing;
namespace fs = std::filesystem;

namespace {

const std::string kBin = SCHEDLAB_BINARY;

std::string write_file(const std::string& name, const std::string& text) {
  const std::string path = fresh_temp_dir("tenants") + "/" + name;
  std::ofstream(path) << text;
  return path;
}

std::string load_error(const std::string& json) {
  const std::string path = write_file("t.json", json);
  try {
    load_tenants_spec(path);
  } catch (const ConfigError& e) {
    const std::string text = e.what();
    return text.substr(text.find(": ") + 2);  // without the temporary path
  }
  return "(no error)";
}

std::string resolve_error(const TenantsSpec& spec, const Trace& trace, const std::string& cluster) {
  try {
    resolve_tenants(&spec, trace, Cluster(parse_cluster_spec(cluster)));
  } catch (const ConfigError& e) {
    const std::string text = e.what();
    return text.substr(text.find(": ") + 2);
  }
  return "(no error)";
}

const char* kThreeTenants =
    "id,submit_time,gpus,duration,tenant\n"
    "j1,0,2,3600,b\n"
    "j2,0,1,3600,a\n"
    "j3,0,1,7200,\n"
    "j4,10,4,3600,b\n";

// CSV rows of `text` as field vectors (no quoted fields in these files).
std::vector<std::vector<std::string>> csv_rows(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    std::vector<std::string> fields;
    std::istringstream cells(line);
    std::string cell;
    while (std::getline(cells, cell, ',')) fields.push_back(cell);
    rows.push_back(fields);
  }
  return rows;
}

// The first line of `text` that contains `key`, or "" when none does.
std::string line_with(const std::string& text, const std::string& key) {
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line))
    if (line.find(key) != std::string::npos) return line;
  return "";
}

}  // namespace

TEST_CASE("tenants files: each problem named by its JSON path and value", "[tenants]") {
  CHECK(load_error(R"({"tenants":[{"name":"a","quota":-4}]})") ==
        "$.tenants[0].quota: expected a GPU count (an integer in 0..1000000000000), got -4");
  CHECK(load_error(R"({"tenants":[{"name":"a","quota":4,"quotas":1}]})") ==
        "$.tenants[0].quotas: unknown key (known: name, quota, weight, borrowing_limit, "
        "lending_limit, cohort)");
  CHECK(load_error(R"({"tenants":[{"name":"a","quota":4}],"x":1})") ==
        "$.x: unknown key (known: tenants, overcommit)");
  CHECK(load_error(R"({"tenants":[{"name":"a","quota":4},{"name":"a","quota":4}]})") ==
        "$.tenants[1].name: tenant 'a' is named twice");
  CHECK(load_error(R"({"tenants":[{"name":"a","quota":{"V100":4}},{"name":"b","quota":4}]})") ==
        "$.tenants[1].quota: quotas per GPU type must be given for every tenant or for none");
  CHECK(load_error(R"({"tenants":[{"name":"a","quota":4,"weight":-1}]})") ==
        "$.tenants[0].weight: expected a number in 0..1e12, got -1");
  CHECK(load_error(R"({"tenants":[{"name":"a"}]})") == "$.tenants[0].quota: missing (a GPU count)");
  CHECK(load_error(R"({"tenants":[]})") == "$.tenants: expected a non-empty array of tenants");
  CHECK(load_error(R"({"tenants":[{"name":"a","quota":1.5}]})") ==
        "$.tenants[0].quota: expected a GPU count (an integer in 0..1000000000000), got 1.5");
  CHECK(load_error(R"({"tenants":[{"name":"a","quota":4,"overcommit":true}]})") ==
        "$.tenants[0].overcommit: unknown key (known: name, quota, weight, borrowing_limit, "
        "lending_limit, cohort)");
  CHECK_THROWS_AS(load_tenants_spec("/no/such/tenants.json"), InputError);
}

TEST_CASE(
    "tenants are bound to the trace: default entry, missing tenants, quotas above the "
    "cluster",
    "[tenants]") {
  const Trace trace = trace_from_csv(kThreeTenants);
  const auto spec = [](const std::string& json) {
    return load_tenants_spec(write_file("t.json", json));
  };
  CHECK(resolve_error(spec(R"({"tenants":[{"name":"a","quota":4},{"name":"b","quota":4}]})"), trace,
                      "1x16:V100") ==
        "tenants: tenant 'default' of the trace (1 jobs) has no entry, and there is no 'default' "
        "entry for the tenants not listed");
  CHECK(resolve_error(spec(R"({"tenants":[{"name":"a","quota":12},{"name":"default","quota":8}]})"),
                      trace, "1x16:V100") ==
        "tenants: quotas add up to 20 GPUs, more than the cluster's 16 (set \"overcommit\": true "
        "to allow it)");
  CHECK(resolve_error(spec(R"({"overcommit":true,"tenants":[{"name":"a","quota":12},)"
                           R"({"name":"default","quota":8}]})"),
                      trace, "1x16:V100") == "(no error)");
  CHECK(resolve_error(spec(R"({"tenants":[{"name":"a","quota":{"A100":4}},)"
                           R"({"name":"default","quota":{"V100":4}}]})"),
                      trace, "1x16:V100") ==
        "tenants: a: quota of GPU type 'A100', which the cluster does not have (it has: V100)");
  CHECK(resolve_error(spec(R"({"tenants":[{"name":"a","quota":{"V100":10}},)"
                           R"({"name":"default","quota":{"V100":8}}]})"),
                      trace, "1x16:V100,1x8:A100") ==
        "tenants: V100 quotas add up to 18 GPUs, more than the cluster's 16 (set \"overcommit\": "
        "true to allow it)");

  // b is not listed: its jobs join `default`.
  const TenantsSpec listed =
      spec(R"({"tenants":[{"name":"a","quota":4,"weight":3},{"name":"default","quota":12}]})");
  const TenantTable table =
      resolve_tenants(&listed, trace, Cluster(parse_cluster_spec("1x16:V100")));
  REQUIRE(table.size() == 2);
  CHECK(table.of_job(0) == 1);  // b -> default
  CHECK(table.of_job(1) == 0);  // a
  CHECK(table.of_job(2) == 1);  // no tenant -> default
  CHECK(table.tenant(0).weight == 3.0);
  CHECK(table.tenant(1).weight == 12.0);  // the quota when no weight is given
  CHECK(table.tenant(0).entitled_share == Approx(0.2));
  CHECK(table.given());
}

TEST_CASE("tenants shorthands: equal, proportional and philly-vc", "[tenants]") {
  const Trace trace = trace_from_csv(kThreeTenants);
  const Cluster cluster(parse_cluster_spec("2x8:V100"));
  // Tenants by name: a, b, default. 16 GPUs: 6, 5, 5 (the first by name gets the remainder).
  const TenantsSpec equal = load_tenants_spec("equal");
  const TenantTable even = resolve_tenants(&equal, trace, cluster);
  REQUIRE(even.size() == 3);
  CHECK(even.tenant(0).name == "a");
  CHECK(even.tenant(2).name == "default");
  CHECK(even.tenant(0).quota_gpus == 6);
  CHECK(even.tenant(1).quota_gpus == 5);
  CHECK(even.tenant(2).quota_gpus == 5);
  CHECK(even.tenant(1).entitled_share == Approx(1.0 / 3));
  // GPU-hours: a 1, b 2 + 4 = 6, default 2: quotas 16 x 1/9, 6/9, 2/9 = 1.78, 10.67, 3.56 ->
  // 1, 10, 3 and the remainders .78, .67, .56 give 2 more: 2, 11, 3.
  const TenantsSpec proportional = load_tenants_spec("proportional");
  const TenantTable by_use = resolve_tenants(&proportional, trace, cluster);
  CHECK(by_use.tenant(0).quota_gpus == 2);
  CHECK(by_use.tenant(1).quota_gpus == 11);
  CHECK(by_use.tenant(2).quota_gpus == 3);
  CHECK(by_use.tenant(1).entitled_share == Approx(6.0 / 9));

  // Philly's VC list, in nodes of the cluster's size.
  const std::string vc = write_file("vc.csv", "vc,node num\na,1\nb,2\ndefault,1\n");
  const TenantsSpec philly = load_tenants_spec("philly-vc:" + vc);
  const TenantTable vcs = resolve_tenants(&philly, trace, Cluster(parse_cluster_spec("4x8:V100")));
  CHECK(vcs.tenant(0).quota_gpus == 8);
  CHECK(vcs.tenant(1).quota_gpus == 16);
  CHECK(resolve_error(philly, trace, "2x8:V100,1x4:V100") ==
        "tenants: Philly VC quotas are counted in nodes, but the cluster's nodes have 8 and 4 GPUs "
        "(use a cluster of one node size or a --tenants JSON file)");
  CHECK_THROWS_WITH(load_tenants_spec("philly-vc:" + write_file("v.csv", "vc,node num\na,x\n")),
                    Catch::Contains("node num: expected an integer in 0..10000000, got 'x'"));

  // The shared Philly VC list sizes the eleven VCs of the 2017 trace: 352 nodes of 8 GPUs.
  const std::string shared = std::string(SCHEDLAB_SHARED_DIR) + "/traces/philly-2017/philly_vc.csv";
  if (fs::exists(shared)) {
    const TenantsSpec all = load_tenants_spec("philly-vc:" + shared);
    std::int64_t nodes = 0;
    for (const auto& entry : all.entries) nodes += entry.quota_gpus;
    CHECK(all.entries.size() == 11);
    CHECK(nodes == 352);
  }
}

TEST_CASE("run --tenants: bad input exits 2 with one line and writes nothing", "[tenants]") {
  const std::string dir = fresh_temp_dir("tenants-cli");
  const std::string trace = dir + "/t.csv";
  std::ofstream(trace) << kThreeTenants;
  const std::string bad = dir + "/bad.json";
  std::ofstream(bad) << R"({"tenants":[{"name":"a","quota":4,"lend":1}]})";
  const CommandResult r = run_command(kBin + " run -t " + trace + " -c 1x16:V100 --tenants " + bad +
                                      " -o " + dir + "/out");
  CHECK(r.exit_code == 2);
  CHECK(r.err == bad +
                     ": $.tenants[0].lend: unknown key (known: name, quota, weight, "
                     "borrowing_limit, lending_limit, cohort)\n");
  CHECK(!fs::exists(dir + "/out"));
  const std::string missing = dir + "/missing.json";
  std::ofstream(missing) << R"({"tenants":[{"name":"a","quota":4}]})";
  const CommandResult m = run_command(kBin + " run -t " + trace + " -c 1x16:V100 --tenants " +
                                      missing + " -o " + dir + "/out");
  CHECK(m.exit_code == 2);
  CHECK(m.err.find("tenant 'b' of the trace (2 jobs) has no entry") != std::string::npos);
  CHECK(!fs::exists(dir + "/out"));
}

TEST_CASE("per-tenant metrics: tenants.csv agrees with jobs.csv, Jain's index recomputed",
          "[tenants]") {
  Rng rng(3);
  RandomTraceSpec random;
  random.jobs = 300;
  random.max_gpus = 8;
  random.mean_interarrival_s = 10;
  std::string csv = random_trace_csv(rng, random);
  // Give each job a tenant: t0 (30 %), t1 (50 %), t2 (20 %).
  std::istringstream lines(csv);
  std::string line;
  std::string tagged;
  std::getline(lines, line);
  tagged = line + ",tenant\n";
  while (std::getline(lines, line)) {
    const double u = rng.uniform();
    tagged += line + (u < 0.3 ? ",t0\n" : u < 0.8 ? ",t1\n" : ",t2\n");
  }
  RunOptions options;
  options.tenants = std::make_shared<const TenantsSpec>(load_tenants_spec(write_file(
      "t.json",
      R"({"tenants":[{"name":"t0","quota":8,"weight":1},{"name":"t1","quota":16,"weight":2},)"
      R"({"name":"t2","quota":8,"weight":1}]})")));
  const SimulationResult result =
      run_checked(trace_from_csv(tagged), "4x8:V100", "fifo", {}, options);
  const auto rows = csv_rows(result.tenants_csv);
  REQUIRE(rows.size() == 4);
  REQUIRE(rows[0][0] == "tenant");
  const auto tenant = jobs_column(result.jobs_csv, "tenant");
  const auto gpus = jobs_column(result.jobs_csv, "requested_number_of_resources");
  const auto held = jobs_column(result.jobs_csv, "execution_time");
  const auto waits = jobs_column(result.jobs_csv, "waiting_time");
  std::map<std::string, double> gpu_s;
  std::map<std::string, double> wait_sum;
  std::map<std::string, int> jobs;
  double all_gpu_s = 0;
  for (std::size_t j = 0; j < tenant.size(); ++j) {
    gpu_s[tenant[j]] += std::stod(gpus[j]) * std::stod(held[j]);
    all_gpu_s += std::stod(gpus[j]) * std::stod(held[j]);
    wait_sum[tenant[j]] += std::stod(waits[j]);
    ++jobs[tenant[j]];
  }
  const std::map<std::string, double> entitled = {{"t0", 0.25}, {"t1", 0.5}, {"t2", 0.25}};
  double sum = 0;
  double squares = 0;
  for (std::size_t r = 1; r < rows.size(); ++r) {
    const std::string& name = rows[r][0];
    INFO(name);
    CHECK(std::stod(rows[r][4]) == Approx(entitled.at(name)));
    CHECK(std::stoi(rows[r][5]) == jobs[name]);
    CHECK(std::stod(rows[r][8]) == Approx(wait_sum[name] / jobs[name]).margin(0.001));
    CHECK(std::stod(rows[r][13]) == Approx(gpu_s[name] / 3600).margin(1e-5));
    const double received = gpu_s[name] / all_gpu_s;
    CHECK(std::stod(rows[r][14]) == Approx(received).margin(1e-6));
    const double x = received / entitled.at(name);
    sum += x;
    squares += x * x;
  }
  const double jain = sum * sum / (3 * squares);
  CHECK(result.summary["fairness"]["whole_run_share_jain"].get<double>() ==
        Approx(jain).margin(1e-6));
  CHECK(jain < 1.0);
  CHECK(result.summary["fairness"]["tenants"].get<int>() == 3);
  CHECK(result.summary["tenants"]["t1"]["quota_gpus"].get<int>() == 16);
  CHECK(result.summary["options"]["tenants"].get<std::string>().ends_with("t.json"));
  // timeseries.csv gains one column per tenant whose values add up to busy_gpus.
  const std::string header = result.timeseries_csv.substr(0, result.timeseries_csv.find('\n'));
  CHECK(header.ends_with(",power_w,gpus.t0,gpus.t1,gpus.t2"));
  for (const auto& row : csv_rows(result.timeseries_csv.substr(header.size() + 1))) {
    const double busy = std::stod(row[1]);
    CHECK(std::stod(row[7]) + std::stod(row[8]) + std::stod(row[9]) == Approx(busy).margin(0.01));
  }
}

TEST_CASE("without --tenants a run reports no tenants and keeps its outputs", "[tenants]") {
  const SimulationResult plain = run_checked(trace_from_csv(kThreeTenants), "1x16:V100", "fifo");
  CHECK(!plain.summary.contains("tenants"));
  CHECK(!plain.summary.contains("fairness"));
  CHECK(!plain.summary["options"].contains("tenants"));
  CHECK(plain.tenants_csv.empty());
  // A tenant policy reports them as with --tenants equal.
  const SimulationResult quota = run_checked(trace_from_csv(kThreeTenants), "1x16:V100", "quota");
  CHECK(quota.summary["options"]["tenants"] == "equal");
  CHECK(quota.summary["tenants"].size() == 3);
}

TEST_CASE("finish-time fairness: rho recomputed from jobs.csv of the shared and the alone runs",
          "[tenants]") {
  Rng rng(8);
  RandomTraceSpec random;
  random.jobs = 200;
  random.max_gpus = 8;
  random.mean_interarrival_s = 15;
  const std::string plain = random_trace_csv(rng, random);
  std::istringstream lines(plain);
  std::string line;
  std::getline(lines, line);
  std::map<std::string, std::string> alone;  // tenant -> its own trace
  std::string tagged = line + ",tenant\n";
  for (const char* t : {"t0", "t1", "t2"}) alone[t] = line + ",tenant\n";
  while (std::getline(lines, line)) {
    const std::string t = fmt::format("t{}", rng.uniform_int(0, 2));
    tagged += line + "," + t + "\n";
    alone[t] += line + "," + t + "\n";
  }
  SimulationRequest request;
  request.policy = "fifo";
  request.isolated_baseline = true;
  request.options.tenants = std::make_shared<const TenantsSpec>(load_tenants_spec(write_file(
      "t.json",
      R"({"tenants":[{"name":"t0","quota":8},{"name":"t1","quota":16},{"name":"t2","quota":8}]})")));
  const SimulationResult shared =
      simulate(trace_from_csv(tagged), parse_cluster_spec("4x8:V100"), request);
  const auto rows = csv_rows(shared.tenants_csv);
  REQUIRE(rows.size() == 4);
  REQUIRE(rows[0].back() == "finish_time_fairness");
  const std::map<std::string, std::string> partition = {
      {"t0", "1x8:V100"}, {"t1", "2x8:V100"}, {"t2", "1x8:V100"}};
  const auto shared_jct = jobs_column(shared.jobs_csv, "turnaround_time");
  const auto tenant_of = jobs_column(shared.jobs_csv, "tenant");
  double worst = 0;
  for (std::size_t r = 1; r < rows.size(); ++r) {
    const std::string& name = rows[r][0];
    INFO(name);
    double shared_sum = 0;
    for (std::size_t j = 0; j < tenant_of.size(); ++j)
      if (tenant_of[j] == name) shared_sum += std::stod(shared_jct[j]);
    const SimulationResult own = run_checked(trace_from_csv(alone[name]), partition.at(name));
    double own_sum = 0;
    for (const auto& jct : jobs_column(own.jobs_csv, "turnaround_time")) own_sum += std::stod(jct);
    const double rho = shared_sum / own_sum;
    CHECK(std::stod(rows[r].back()) == Approx(rho).margin(1e-5));
    CHECK(shared.summary["tenants"][name]["finish_time_fairness"].get<double>() ==
          Approx(rho).margin(1e-5));
    worst = std::max(worst, rho);
  }
  CHECK(shared.summary["fairness"]["max_finish_time_fairness"].get<double>() ==
        Approx(worst).margin(1e-5));

  // Hard partitions of the entitled sizes on one node are the isolated runs themselves: rho is
  // 1 (on several nodes, another tenant's jobs can fragment the free GPUs).
  request.policy = "quota";
  request.params = {{"borrowing", "false"}};
  const SimulationResult hard =
      simulate(trace_from_csv(tagged), parse_cluster_spec("1x32:V100"), request);
  for (const char* t : {"t0", "t1", "t2"})
    CHECK(hard.summary["tenants"][t]["finish_time_fairness"].get<double>() == 1.0);
  // Without tenants there is nothing to compare with.
  request.policy = "fifo";
  request.params = {};
  request.options.tenants.reset();
  CHECK_THROWS_WITH(simulate(trace_from_csv(tagged), parse_cluster_spec("4x8:V100"), request),
                    "--isolated-baseline: the run has no tenants (give --tenants or a tenant "
                    "policy)");
}

TEST_CASE("tenants through run -o, report and check", "[tenants]") {
  const std::string dir = fresh_temp_dir("tenants-workflow");
  std::string csv = "id,submit_time,gpus,duration,tenant\n";
  for (int i = 0; i < 40; ++i)
    csv += fmt::format("a{},{},4,500,a\nb{},{},2,300,b\n", i, i * 10, i, i * 30);
  std::ofstream(dir + "/t.csv") << csv;
  std::ofstream(dir + "/t.json")
      << R"({"tenants":[{"name":"a","quota":8},{"name":"b","quota":8}]})";
  const std::string run = kBin + " run -q --reproducible -t " + dir +
                          "/t.csv -c 2x8:V100 --tenants " + dir + "/t.json -o " + dir;
  REQUIRE(run_command(run + "/fifo -p fifo").exit_code == 0);
  REQUIRE(run_command(run + "/quota -p quota").exit_code == 0);
  CHECK(fs::exists(dir + "/quota/tenants.csv"));
  const CommandResult report =
      run_command(kBin + " report " + dir + "/fifo " + dir + "/quota -o " + dir + "/r.html");
  REQUIRE(report.exit_code == 0);
  const std::string html = read_text(dir + "/r.html");
  CHECK(html.find("<h2>Tenants</h2>") != std::string::npos);
  CHECK(html.find("GPUs by tenant over time: fifo") != std::string::npos);
  CHECK(html.find("GPUs by tenant over time: quota") != std::string::npos);
  CHECK(html.find("Mean wait by tenant") != std::string::npos);
  CHECK(html.find("b — quota") != std::string::npos);
  // Each tenant's GPUs against its entitlement (8 of 16 GPUs): a dashed line in the tenant's
  // colour, the same colour as its band in both stacked charts (a has the most GPU-time: the
  // first tenant colour).
  CHECK(html.find("aria-label=\"GPUs held by tenant a against its entitlement\"") !=
        std::string::npos);
  CHECK(html.find("<path class=\"mark line dashed\" d=\"M66.0,192.0 L576.0,192.0\" "
                  "stroke=\"#4E79A7\"><title>entitlement 8 GPUs</title>") != std::string::npos);
  CHECK(html.find("<path class=\"mark line dashed\" d=\"M66.0,192.0 L576.0,192.0\" "
                  "stroke=\"#F28E2B\"><title>entitlement 8 GPUs</title>") != std::string::npos);
  const std::regex a_band("<polygon class=\"band\" points=\"[^\"]*\" fill=\"#4E79A7\"/>");
  CHECK(std::distance(std::sregex_iterator(html.begin(), html.end(), a_band),
                      std::sregex_iterator()) == 2);  // a's band in fifo's and quota's chart
  // Per-tenant keys are gated with their catalog directions: quota halves b's waits at a's
  // expense, which the gate reports as a's regression.
  const CommandResult check = run_command(kBin + " check --baseline " + dir + "/fifo --current " +
                                          dir + "/quota --tolerance '*=1' --allow-setup-change");
  CHECK(check.exit_code == 1);
  CHECK_THAT(line_with(check.out, "tenants.a.wait_s.mean "),
             Catch::Contains("REGRESSION (lower is better)"));
  CHECK_THAT(line_with(check.out, "tenants.b.wait_s.mean "), Catch::Contains("better"));
  CHECK_THAT(line_with(check.out, "tenants.b.wait_s.mean "), !Catch::Contains("REGRESSION"));
}

TEST_CASE("every policy that ignores tenants schedules the same with --tenants", "[tenants]") {
  Rng rng(21);
  RandomTraceSpec random;
  random.jobs = 150;
  random.max_overestimate = 2.0;
  random.priorities = 3;
  std::string csv = random_trace_csv(rng, random);
  std::istringstream lines(csv);
  std::string line;
  std::getline(lines, line);
  std::string tagged = line + ",tenant\n";
  while (std::getline(lines, line)) tagged += line + fmt::format(",t{}\n", rng.uniform_int(0, 3));
  const Trace trace = trace_from_csv(tagged);
  RunOptions with;
  with.tenants = std::make_shared<const TenantsSpec>(load_tenants_spec("proportional"));
  int compared = 0;
  for (const auto& info : registered_policies()) {
    if (info.uses_tenants) continue;
    INFO(info.name);
    const SimulationResult plain = run_checked(trace, "4x4:V100", info.name);
    const SimulationResult tenants = run_checked(trace, "4x4:V100", info.name, {}, with);
    CHECK(plain.jobs_csv == tenants.jobs_csv);
    CHECK(plain.attempts_csv == tenants.attempts_csv);
    CHECK(tenants.summary.contains("tenants"));
    ++compared;
  }
  CHECK(compared >= 7);
}

TEST_CASE("waited under entitlement counts only waits a job could fit, and the entitlement deficit",
          "[tenants]") {
  // 1 node x 4 GPUs, three tenants of weight 1: each is entitled to 4/3 GPUs. a holds all 4
  // over [0, 100). b queues a 3-GPU job from 10, c a 1-GPU job from 20; both start at 100.
  // b's job could never fit within 4/3 GPUs: it waited 90 s, none of it under its entitlement
  // (the rule before counted all 90 s, as b held less than its share). c's job fits: 80 s.
  // Deficits: b min(0 + 3, 4/3) x 90 s = 120 GPU-s, c min(0 + 1, 4/3) x 80 s = 80 GPU-s.
  RunOptions options;
  options.tenants = std::make_shared<const TenantsSpec>(load_tenants_spec(write_file(
      "t.json", R"({"tenants":[{"name":"a","quota":1,"weight":1},)"
                R"({"name":"b","quota":1,"weight":1},{"name":"c","quota":1,"weight":1}]})")));
  const SimulationResult result =
      run_checked(trace_from_csv("id,submit_time,gpus,duration,tenant\na1,0,4,100,a\nb1,10,3,50,b\n"
                                 "c1,20,1,50,c\n"),
                  "1x4:V100", "fifo", {}, options);
  const auto& tenants = result.summary["tenants"];
  CHECK(tenants["b"]["waited_under_entitlement_s"].get<double>() == 0.0);
  CHECK(tenants["b"]["waited_under_entitlement_share"].get<double>() == 0.0);
  CHECK(tenants["b"]["entitlement_deficit_gpu_h"].get<double>() ==
        Approx(120.0 / 3600).margin(1e-6));
  CHECK(tenants["c"]["waited_under_entitlement_s"].get<double>() == 80.0);
  CHECK(tenants["c"]["waited_under_entitlement_share"].get<double>() == 1.0);
  CHECK(tenants["c"]["entitlement_deficit_gpu_h"].get<double>() ==
        Approx(80.0 / 3600).margin(1e-6));
  CHECK(tenants["a"]["entitlement_deficit_gpu_h"].get<double>() == 0.0);
  CHECK(result.summary["fairness"]["entitlement_deficit_gpu_h"].get<double>() ==
        Approx(200.0 / 3600).margin(1e-6));
  const auto rows = csv_rows(result.tenants_csv);
  REQUIRE(rows.size() == 4);
  CHECK(rows[3][16] == "80.000");    // c's waited_under_entitlement_s
  CHECK(rows[3][17] == "0.022222");  // c's entitlement_deficit_gpu_h
}
