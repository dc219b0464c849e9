// The quota policy: hard partitions equal FIFO on each tenant's own partition, reclaim gives a
// within-quota tenant its GPUs at once, borrowing fills what partitions leave idle.
#include <fstream>
#include <map>
#include <memory>
#include <string>

#include <fmt/format.h>
#include <catch2/catch.hpp>

#include "policies/policy_support.hpp"
#include "schedlab/tenants.hpp"
#include "schedlab/trace.hpp"
#include "schedlab/trace_filter.hpp"

using namespace schedlab;
using namespace schedlab::testing;

namespace {

// Writes a --tenants file into a fresh directory and loads it.
std::shared_ptr<const TenantsSpec> tenants_file(const std::string& json) {
  const std::string path = fresh_temp_dir("quota-tenants") + "/tenants.json";
  std::ofstream(path) << json;
  return std::make_shared<const TenantsSpec>(load_tenants_spec(path));
}

struct TenantJob {
  std::string line;  // id,submit_time,gpus,duration,tenant
  std::string tenant;
};

}  // namespace

TEST_CASE(
    "quota without borrowing: every job starts when FIFO starts it on its tenant's "
    "partition alone",
    "[tenants][quota]") {
  const std::map<std::string, int> quota = {{"a", 32}, {"b", 16}, {"c", 16}};
  RunOptions options;
  options.tenants = tenants_file(
      R"({"tenants":[{"name":"a","quota":32},{"name":"b","quota":16},{"name":"c","quota":16}]})");
  Rng rng(11);
  for (int round = 0; round < 40; ++round) {
    INFO("round " << round);
    std::vector<TenantJob> jobs;
    TimeMs submit_ms = 0;
    for (int j = 0; j < 120; ++j) {
      submit_ms += rng.uniform_int(0, 30'000);
      const std::string tenant = std::string(1, static_cast<char>('a' + rng.uniform_int(0, 2)));
      const int gpus = static_cast<int>(1 << rng.uniform_int(0, 4));  // 1..16
      const TimeMs duration_ms = rng.uniform_int(1, 600) * 1000;
      jobs.push_back({fmt::format("j{},{},{},{},{}", j, static_cast<double>(submit_ms) / 1000, gpus,
                                  static_cast<double>(duration_ms) / 1000, tenant),
                      tenant});
    }
    std::string all = "id,submit_time,gpus,duration,tenant\n";
    for (const auto& job : jobs) all += job.line + "\n";
    const auto shared = start_times(
        run_checked(trace_from_csv(all), "1x64:V100", "quota", {{"borrowing", "false"}}, options)
            .jobs_csv);
    for (const auto& [tenant, gpus] : quota) {
      std::string alone = "id,submit_time,gpus,duration,tenant\n";
      for (const auto& job : jobs)
        if (job.tenant == tenant) alone += job.line + "\n";
      const auto own = start_times(
          run_checked(trace_from_csv(alone), fmt::format("1x{}:V100", gpus), "fifo").jobs_csv);
      for (const auto& [id, start_s] : own) {
        INFO("job " << id << " of tenant " << tenant);
        CHECK(shared.at(id) == start_s);
      }
    }
  }
}

TEST_CASE("quota with reclaim: a tenant within its quota starts every job at its submit time",
          "[tenants][quota]") {
  // One 64-GPU node. g (quota 16) floods the node with long 8-GPU jobs and borrows all of it;
  // a (quota 24) and b (quota 24) each keep at most 24 GPUs busy.
  std::string csv = "id,submit_time,gpus,duration,tenant\n";
  for (int j = 0; j < 40; ++j) csv += fmt::format("g{},{},8,5000,g\n", j, j);
  Rng rng(5);
  for (const char* tenant : {"a", "b"}) {
    TimeMs t_ms = 100'000;
    for (int j = 0; j < 30; ++j) {
      // Three 8-GPU jobs at a time at most: each lasts less than the gap to the third next.
      csv += fmt::format("{}{},{},8,{},{}\n", tenant, j, static_cast<double>(t_ms) / 1000,
                         rng.uniform_int(50, 299), tenant);
      t_ms += rng.uniform_int(100, 150) * 1000;
    }
  }
  const std::string tenants =
      R"({"tenants":[{"name":"g","quota":16},{"name":"a","quota":24},{"name":"b","quota":24}]})";
  RunOptions options;
  options.tenants = tenants_file(tenants);
  options.restart_overhead_ms = 0;
  const Trace trace = trace_from_csv(csv);
  const SimulationResult reclaimed = run_checked(trace, "1x64:V100", "quota", {}, options);
  const auto starts = start_times(reclaimed.jobs_csv);
  const auto submits = column_by_id(reclaimed, "submission_time");
  int checked = 0;
  for (const auto& [id, start_s] : starts) {
    if (id[0] == 'g') continue;
    INFO("job " << id);
    CHECK(start_s == std::stod(submits.at(id)));
    ++checked;
  }
  CHECK(checked == 60);
  CHECK(reclaimed.summary["restarts"]["preemptions"].get<int>() > 0);
  // The greedy tenant did borrow: it ran more than its 16 GPUs at once at the start.
  CHECK(start_times(reclaimed.jobs_csv).at("g7") == 7.0);

  // Without reclaim the same tenants wait for the borrowers to end.
  const SimulationResult waited =
      run_checked(trace, "1x64:V100", "quota", {{"reclaim", "none"}}, options);
  const auto late = start_times(waited.jobs_csv);
  int delayed = 0;
  for (const auto& [id, start_s] : late)
    if (id[0] != 'g' && start_s > std::stod(submits.at(id))) ++delayed;
  CHECK(delayed > 10);
  CHECK(waited.summary["restarts"]["preemptions"].get<int>() == 0);
}

TEST_CASE("quota: borrowing fills GPUs that hard partitions leave idle, within the limits",
          "[tenants][quota]") {
  // a (quota 8) has work for 16 GPUs; b (quota 8) is idle until t = 1000 s.
  std::string csv = "id,submit_time,gpus,duration,tenant\n";
  for (int j = 0; j < 4; ++j) csv += fmt::format("a{},0,4,1000,a\n", j);
  csv += "b0,1000,8,100,b\n";
  RunOptions options;
  options.restart_overhead_ms = 0;
  options.tenants = tenants_file(R"({"tenants":[{"name":"a","quota":8},{"name":"b","quota":8}]})");
  const Trace trace = trace_from_csv(csv);
  const auto hard = start_times(
      run_checked(trace, "1x16:V100", "quota", {{"borrowing", "false"}}, options).jobs_csv);
  CHECK(hard.at("a2") == 1000.0);
  CHECK(hard.at("b0") == 1000.0);
  const auto shared = start_times(run_checked(trace, "1x16:V100", "quota", {}, options).jobs_csv);
  CHECK(shared.at("a2") == 0.0);  // borrowed b's idle quota
  CHECK(shared.at("a3") == 0.0);
  CHECK(shared.at("b0") == 1000.0);  // a's jobs end at 1000 s: nothing to reclaim

  // A borrowing limit of 4 lets a run one borrowed job, not two.
  options.tenants = tenants_file(
      R"({"tenants":[{"name":"a","quota":8,"borrowing_limit":4},{"name":"b","quota":8}]})");
  const auto limited = start_times(run_checked(trace, "1x16:V100", "quota", {}, options).jobs_csv);
  CHECK(limited.at("a2") == 0.0);
  CHECK(limited.at("a3") == 1000.0);
  // A lending limit of 0 on b keeps all of its quota to itself.
  options.tenants = tenants_file(
      R"({"tenants":[{"name":"a","quota":8},{"name":"b","quota":8,"lending_limit":0}]})");
  const auto kept = start_times(run_checked(trace, "1x16:V100", "quota", {}, options).jobs_csv);
  CHECK(kept.at("a2") == 1000.0);
  // Different cohorts lend nothing to each other.
  options.tenants = tenants_file(
      R"({"tenants":[{"name":"a","quota":8,"cohort":"x"},{"name":"b","quota":8,"cohort":"y"}]})");
  const auto apart = start_times(run_checked(trace, "1x16:V100", "quota", {}, options).jobs_csv);
  CHECK(apart.at("a2") == 1000.0);
}

TEST_CASE("quota: head-of-line blocking stays within a tenant", "[tenants][quota]") {
  // a's second job needs all of a's 8 GPUs and blocks a's 1-GPU job behind it; b's job starts
  // past both.
  const std::string csv =
      "id,submit_time,gpus,duration,tenant\n"
      "a0,0,6,100,a\n"
      "a1,1,8,100,a\n"
      "a2,2,1,100,a\n"
      "b0,3,1,100,b\n";
  RunOptions options;
  options.tenants = tenants_file(R"({"tenants":[{"name":"a","quota":8},{"name":"b","quota":8}]})");
  const auto starts = start_times(
      run_checked(trace_from_csv(csv), "1x16:V100", "quota", {{"borrowing", "false"}}, options)
          .jobs_csv);
  CHECK(starts.at("a1") == 100.0);
  CHECK(starts.at("a2") == 200.0);  // it would fit beside a0 at 2 s, but a1 is ahead of it
  CHECK(starts.at("b0") == 3.0);
}

TEST_CASE(
    "quota on Philly 2017 with Philly's VC quotas: borrowing raises utilization over hard "
    "partitions",
    "[tenants][quota]") {
  const std::string dir = std::string(SCHEDLAB_SHARED_DIR) + "/traces/philly-2017";
  if (!std::ifstream(dir + "/philly.csv")) {
    WARN("shared Philly 2017 trace not found: skipped");
    return;
  }
  // The eleven VCs of philly_vc.csv (the trace's other VCs have no nodes there).
  Trace trace = read_trace(dir + "/philly.csv");
  apply_trace_filter(
      trace, parse_trace_filter({"tenant=6214e9,7f04ca,11cb48,b436b2,ee9e8c,e13805,6c71a0,2869ce,"
                                 "ed69ec,103959,0e4a51"}));
  // Philly's VC sizes in nodes of 2 GPUs (704 GPUs, a quarter of the VCs' 2,816): loaded enough
  // for tenants to queue, and every job still fits its VC's quota.
  const ClusterSpec cluster = parse_cluster_spec("352x2:V100");
  SimulationRequest request;
  request.policy = "quota";
  request.files = false;
  request.options.tenants =
      std::make_shared<const TenantsSpec>(load_tenants_spec("philly-vc:" + dir + "/philly_vc.csv"));
  request.params = {{"borrowing", "false"}};
  const SimulationResult hard = simulate(trace, cluster, request);
  request.params = {};
  const SimulationResult borrowing = simulate(trace, cluster, request);
  const double hard_utilization = hard.summary["utilization"].get<double>();
  const double shared_utilization = borrowing.summary["utilization"].get<double>();
  INFO("hard " << hard_utilization << ", borrowing " << shared_utilization);
  CHECK(shared_utilization > hard_utilization * 1.2);  // measured: 0.399 hard, 0.532 borrowing
  CHECK(borrowing.summary["wait_s"]["mean"].get<double>() <
        hard.summary["wait_s"]["mean"].get<double>());
}

TEST_CASE("quota reclaims from borrowers in Kueue's order: lowest priority first, then newest",
          "[tenants][quota]") {
  // One 4-GPU node. g (quota 2) runs lo (priority 0, from 0) and hi (priority 5, from 1), so it
  // borrows a's 2 GPUs. At 10, a's job (within a's quota) reclaims 2 GPUs: lo is preempted,
  // though hi started later (newest-first alone would preempt hi).
  const Trace trace = trace_from_csv(
      "id,submit_time,gpus,duration,tenant,priority\n"
      "lo,0,2,1000,g,0\nhi,1,2,1000,g,5\na1,10,2,100,a,0\n");
  RunOptions options;
  options.tenants = tenants_file(R"({"tenants":[{"name":"g","quota":2},{"name":"a","quota":2}]})");
  options.restart_overhead_ms = 0;
  const SimulationResult result = run_checked(trace, "1x4:V100", "quota", {}, options);
  const auto preemptions = column_by_id(result, "preemptions");
  CHECK(preemptions.at("lo") == "1");
  CHECK(preemptions.at("hi") == "0");
  CHECK(start_times(result.jobs_csv).at("a1") == 10.0);
  // Equal priorities: the newest borrower goes first, as before.
  const Trace equal = trace_from_csv(
      "id,submit_time,gpus,duration,tenant,priority\n"
      "lo,0,2,1000,g,0\nhi,1,2,1000,g,0\na1,10,2,100,a,0\n");
  const auto equal_preemptions =
      column_by_id(run_checked(equal, "1x4:V100", "quota", {}, options), "preemptions");
  CHECK(equal_preemptions.at("lo") == "0");
  CHECK(equal_preemptions.at("hi") == "1");
}
