// MIG slices (include/schedlab/mig.hpp) and GPU type sets: the layout rules against NVIDIA's
// placement table, hand-checked replays with layout changes and their reconfiguration time,
// jobs that accept several GPU types, the trace columns, and the invariants (valid layouts
// included) held by every built-in policy.
#include <bit>
#include <cstdio>

#include <fmt/format.h>
#include <catch2/catch.hpp>

#include "schedlab/cluster.hpp"
#include "schedlab/error.hpp"
#include "schedlab/mig.hpp"
#include "schedlab/policy.hpp"
#include "schedlab/policy_contract.hpp"
#include "schedlab/random.hpp"
#include "schedlab/trace_writer.hpp"
#include "support/builders.hpp"

using namespace schedlab;
using namespace schedlab::testing;

namespace {

const MigGeometry& a100_80() {
  const MigGeometry* geometry = find_mig_geometry("a100-80gb");
  REQUIRE(geometry != nullptr);
  return *geometry;
}

int profile(const MigGeometry& geometry, const char* name) {
  const int p = geometry.profile_index(name);
  REQUIRE(p != kNoMigProfile);
  return p;
}

std::string write_file(const std::string& tag, const std::string& text) {
  const std::string path = fresh_temp_dir(tag) + "/cluster.json";
  std::FILE* f = std::fopen(path.c_str(), "wb");
  REQUIRE(f != nullptr);
  std::fwrite(text.data(), 1, text.size(), f);
  std::fclose(f);
  return path;
}

// `mig_nodes` nodes of `gpus` A100s split by MIG (a100-80gb), then `plain_nodes` of V100s.
std::string mig_cluster(int mig_nodes, int plain_nodes, int gpus) {
  std::string groups =
      fmt::format(R"({{"count": {}, "gpus_per_node": {}, "gpu_type": "A100", "cpu_milli": 64000, )"
                  R"("memory_mib": 524288}})",
                  mig_nodes, gpus);
  if (plain_nodes > 0)
    groups += fmt::format(
        R"(, {{"count": {}, "gpus_per_node": {}, "gpu_type": "V100", "cpu_milli": 64000, )"
        R"("memory_mib": 524288}})",
        plain_nodes, gpus);
  return write_file(
      "mig-cluster",
      fmt::format(R"({{"gpu_types": [{{"name": "A100", "idle_watts": 50, "busy_watts": 400, )"
                  R"("mig": "a100-80gb"}}], "node_groups": [{}]}})",
                  groups));
}

RunOptions sharing(TimeMs mig_reconfig_ms = 0) {
  RunOptions options;
  options.gpu_sharing = "fgd";
  options.mig_reconfig_ms = mig_reconfig_ms;
  return options;
}

std::map<std::string, std::string> column_by_id(const std::string& jobs_csv,
                                                const std::string& name) {
  const auto ids = jobs_column(jobs_csv, "job_id");
  const auto values = jobs_column(jobs_csv, name);
  std::map<std::string, std::string> out;
  for (std::size_t i = 0; i < ids.size(); ++i) out[ids[i]] = values[i];
  return out;
}

}  // namespace

TEST_CASE("mig: the built-in geometries follow NVIDIA's profile and placement tables", "[mig]") {
  const MigGeometry& g = a100_80();
  std::vector<std::string> names;
  for (const MigProfile& p : g.profiles) names.push_back(p.name);
  CHECK(names ==
        std::vector<std::string>{"1g.10gb", "1g.20gb", "2g.20gb", "3g.40gb", "4g.40gb", "7g.80gb"});
  CHECK(find_mig_geometry("a100-40gb")->profiles.front().name == "1g.5gb");
  CHECK(find_mig_geometry("a100-40gb")->profiles.back().name == "7g.40gb");
  CHECK(find_mig_geometry("h100-80gb") != nullptr);
  CHECK(find_mig_geometry("v100") == nullptr);
  CHECK(is_mig_profile_name("1g.5gb"));
  CHECK_FALSE(is_mig_profile_name("5g.50gb"));
  // Instances of each profile an empty GPU holds at most (nvidia-smi mig -lgip): 7, 4, 3, 2, 1, 1.
  const std::vector<int> most = {7, 4, 3, 2, 1, 1};
  for (std::size_t p = 0; p < g.profiles.size(); ++p) {
    MigLayout layout;
    int count = 0;
    while (mig_spot(g, layout, static_cast<int>(p))) {
      mig_take(g, layout, static_cast<int>(p));
      ++count;
    }
    INFO(g.profiles[p].name);
    CHECK(count == most[p]);
    CHECK(mig_instance_milli(g.profiles[p]) == g.profiles[p].slots * 125);
    check_mig_layout(g, layout, "test");
  }
}

TEST_CASE("mig: idle instances are reused, and a layout changes only on idle slots", "[mig]") {
  const MigGeometry& g = a100_80();
  MigLayout layout;
  const int p3 = profile(g, "3g.40gb"), p4 = profile(g, "4g.40gb"), p1 = profile(g, "1g.10gb");
  auto first = mig_take(g, layout, p3);
  CHECK(first.start == 0);
  CHECK(first.reconfigure);
  auto second = mig_take(g, layout, p3);
  CHECK(second.start == 4);
  CHECK_FALSE(mig_spot(g, layout, p3));
  CHECK_FALSE(mig_spot(g, layout, p1));  // every slot is busy
  mig_give_back(layout, p3, 0);
  // An idle 3g instance at 0 is reused without a change.
  auto again = mig_spot(g, layout, p3);
  REQUIRE(again);
  CHECK(again->start == 0);
  CHECK_FALSE(again->reconfigure);
  // 4g.40gb starts only at 0: the idle 3g instance there is destroyed.
  auto four = mig_take(g, layout, p4);
  CHECK(four.start == 0);
  CHECK(four.reconfigure);
  REQUIRE(layout.instances.size() == 2);
  CHECK(layout.instances[0].profile == p4);
  CHECK(layout.instances[1].profile == p3);
  CHECK(layout.busy_slots(g) == 0xFF);
  CHECK_THROWS_AS(mig_give_back(layout, p3, 0), InvariantError);
  // A 7g instance needs every slot idle.
  mig_give_back(layout, p4, 0);
  CHECK_FALSE(mig_spot(g, layout, profile(g, "7g.80gb")));
  mig_give_back(layout, p3, 4);
  CHECK(mig_spot(g, layout, profile(g, "7g.80gb"))->reconfigure);
}

TEST_CASE("mig: invalid layouts are refused", "[mig]") {
  const MigGeometry& g = a100_80();
  MigLayout overlap;
  overlap.instances = {{profile(g, "3g.40gb"), 0, true}, {profile(g, "2g.20gb"), 2, false}};
  CHECK_THROWS_WITH(check_mig_layout(g, overlap, "gpu 0"),
                    Catch::Contains("gpu 0: 2g.20gb instance at slot 2 overlaps another"));
  MigLayout bad_start;
  bad_start.instances = {{profile(g, "3g.40gb"), 2, true}};
  CHECK_THROWS_WITH(check_mig_layout(g, bad_start, "gpu 1"),
                    Catch::Contains("3g.40gb instance at slot 2, not a valid start"));
}

TEST_CASE("mig: random take and give-back sequences keep every layout valid", "[mig]") {
  for (const MigGeometry& g : builtin_mig_geometries()) {
    Rng rng(7);
    MigLayout layout;
    std::vector<std::pair<int, int>> held;  // (profile, start)
    for (int step = 0; step < 5000; ++step) {
      if (!held.empty() && rng.uniform_int(0, 2) == 0) {
        const auto i = static_cast<std::size_t>(
            rng.uniform_int(0, static_cast<std::int64_t>(held.size()) - 1));
        mig_give_back(layout, held[i].first, held[i].second);
        held.erase(held.begin() + static_cast<std::ptrdiff_t>(i));
      } else {
        const int p =
            static_cast<int>(rng.uniform_int(0, static_cast<std::int64_t>(g.profiles.size()) - 1));
        const std::uint8_t busy_before = layout.busy_slots(g);
        if (const auto spot = mig_spot(g, layout, p)) {
          const MigSpot taken = mig_take(g, layout, p);
          CHECK(taken.start == spot->start);
          held.emplace_back(p, taken.start);
          // Busy instances never move: every slot busy before is busy after.
          CHECK((layout.busy_slots(g) & busy_before) == busy_before);
        }
      }
      check_mig_layout(g, layout, g.name);
      int busy_slots = 0;
      for (const auto& [p, start] : held)
        busy_slots += g.profiles[static_cast<std::size_t>(p)].slots;
      REQUIRE(std::popcount(layout.busy_slots(g)) == busy_slots);
    }
  }
}

TEST_CASE("mig: a replay reuses and changes layouts, charging each change's time", "[mig]") {
  // One A100 split by MIG. a and b take the two 3g halves (two layout changes); c needs 4g.40gb
  // at slot 0, which frees when a ends at 12 (2 s change + 10 s): the idle 3g instance there is
  // destroyed (third change) and c ends at 12 + 2 + 5. d finds an idle 3g instance: no change.
  // e, a whole-GPU job, takes the idle GPU and clears its layout (fourth change).
  const Trace trace = trace_from_csv(
      "id,submit_time,gpus,duration,mig_profile\n"
      "a,0,1,10,3g.40gb\n"
      "b,0,1,20,3g.40gb\n"
      "c,0,1,5,4g.40gb\n"
      "d,30,1,10,3g.40gb\n"
      "e,50,1,5,\n");
  const auto result = run_checked(trace, mig_cluster(1, 0, 1), "fifo", {}, sharing(2000));
  const auto starts = start_times(result.jobs_csv);
  const auto ends = column_by_id(result.jobs_csv, "finish_time");
  CHECK(starts.at("a") == 0);
  CHECK(starts.at("b") == 0);
  CHECK(starts.at("c") == 12);
  CHECK(starts.at("d") == 30);
  CHECK(starts.at("e") == 50);
  CHECK(ends.at("a") == "12.000");
  CHECK(ends.at("b") == "22.000");
  CHECK(ends.at("c") == "19.000");
  CHECK(ends.at("d") == "40.000");
  CHECK(ends.at("e") == "57.000");
  const auto& s = result.summary["sharing"];
  CHECK(s["mig_reconfigurations"] == 4);
  // [0, 12): 8 of 8 slots; [12, 19): 8; [19, 22): 4; [22, 30): 0; [30, 40): 4; [40, 50): 0;
  // [50, 57): 8. In slots x seconds: 96 + 56 + 12 + 40 + 56 = 260 of 57 x 8.
  CHECK(s["mean_allocated_gpu_share"].get<double>() == Approx(260.0 / (57.0 * 8.0)).epsilon(1e-5));
  CHECK(result.summary["options"]["mig_reconfig_s"] == 2.0);
  // Without sharing each MIG job holds the whole GPU, one after another.
  const auto whole = run_checked(trace, mig_cluster(1, 0, 1), "fifo");
  CHECK(start_times(whole.jobs_csv).at("b") == 10);
  CHECK_FALSE(whole.summary.contains("sharing"));
}

TEST_CASE("mig: jobs go to a GPU with an idle instance, then to the fullest GPU", "[mig]") {
  // Two MIG GPUs. p takes GPU 0 (both empty: the lower index). q (1g) goes beside p on GPU 0,
  // the fuller GPU. After p ends, r (3g) reuses p's idle instance on GPU 0 without a change.
  const Trace trace = trace_from_csv(
      "id,submit_time,gpus,duration,mig_profile\n"
      "p,0,1,10,3g.40gb\n"
      "q,1,1,100,1g.10gb\n"
      "r,20,1,10,3g.40gb\n");
  const auto result = run_checked(trace, mig_cluster(1, 0, 2), "fifo", {}, sharing());
  const auto gpus = column_by_id(result.jobs_csv, "allocated_resources");
  CHECK(gpus.at("p") == "0");
  CHECK(gpus.at("q") == "0");
  CHECK(gpus.at("r") == "0");
  CHECK(result.summary["sharing"]["mig_reconfigurations"] == 2);
}

TEST_CASE("mig: a job whose profile no GPU offers is rejected", "[mig]") {
  const Trace trace = trace_from_csv(
      "id,submit_time,gpus,duration,mig_profile\n"
      "small,0,1,10,1g.5gb\n"
      "ok,0,1,10,1g.10gb\n");
  const auto result = run_checked(trace, mig_cluster(1, 1, 2), "fifo", {}, sharing());
  CHECK(result.summary["jobs"]["rejected"] == 1);  // 1g.5gb is an A100 40GB profile
  CHECK(jobs_column(result.jobs_csv, "final_state")[1] == "COMPLETED_SUCCESSFULLY");
  CHECK_THROWS_WITH(parse_cluster_spec(write_file(
                        "mig-bad", R"({"gpu_types": [{"name": "A100", "idle_watts": 50, )"
                                   R"("busy_watts": 400, "mig": "a100-96gb"}], )"
                                   R"("node_groups": [{"count": 1, "gpus_per_node": 8}]})")),
                    Catch::Contains("$.gpu_types[0].mig: unknown MIG geometry 'a100-96gb' "
                                    "(known: a100-40gb, a100-80gb, h100-80gb)"));
}

TEST_CASE("gpu type sets: a job runs only on a type it accepts when GPUs are shared",
          "[sharing][mig]") {
  const Trace trace = trace_from_csv(
      "id,submit_time,gpus,duration,gpu_type\n"
      "p,0,1,10,A100|H100\n"
      "q,0,1,10,H100|A100\n"
      "r,0,1,10,H100|B200\n");
  REQUIRE(trace.jobs[0].gpu_type_set != 0);
  CHECK(trace.jobs[0].gpu_type == 0);
  CHECK(trace.gpu_type_sets.size() == 4);  // none, {A100, H100}, {H100, A100}, {H100, B200}
  const auto shared = run_checked(trace, mig_cluster(1, 1, 1), "fifo", {}, sharing());
  const auto starts = start_times(shared.jobs_csv);
  CHECK(starts.at("p") == 0);
  CHECK(starts.at("q") == 10);  // the one A100 is busy; the idle V100 is not accepted
  CHECK(shared.summary["jobs"]["rejected"] == 1);  // r: no H100 or B200 in the cluster
  // Without sharing the set is not honoured: every job runs on any type.
  const auto whole = run_checked(trace, mig_cluster(1, 1, 1), "fifo");
  CHECK(whole.summary["jobs"]["rejected"] == 0);
}

TEST_CASE("mig and type sets: the native columns round-trip and bad values are refused",
          "[mig][traces]") {
  const Trace trace = trace_from_csv(
      "id,submit_time,gpus,duration,gpu_type,mig_profile\n"
      "a,0,1,10,A100| H100,3g.40gb\n"
      "b,1,2,10,V100,\n"
      "c,2,1,10,A100|A100,\n");
  CHECK(trace.jobs[2].gpu_type_set == 0);  // one distinct name is a constraint
  CHECK(trace.strings.str(trace.jobs[2].gpu_type) == "A100");
  const std::string text = format_native_trace(trace);
  CHECK(text ==
        "id,submit_time,gpus,duration,gpu_type,mig_profile\n"
        "a,0.000,1,10.000,A100|H100,3g.40gb\n"
        "b,1.000,2,10.000,V100,\n"
        "c,2.000,1,10.000,A100,\n");
  CHECK(format_native_trace(trace_from_csv(text)) == text);
  CHECK_THROWS_WITH(trace_from_csv("id,submit_time,gpus,duration,mig_profile\na,0,1,10,9g.90gb\n"),
                    Catch::Contains("column 'mig_profile': expected a MIG profile of a100-40gb, "
                                    "a100-80gb, h100-80gb, e.g. 3g.40gb, got '9g.90gb'"));
  CHECK_THROWS_WITH(
      trace_from_csv("id,submit_time,gpus,duration,mig_profile\na,0,2,10,1g.10gb\n"),
      Catch::Contains("column 'mig_profile': expected no profile for a job of more than one GPU"));
  CHECK_THROWS_WITH(trace_from_csv("id,submit_time,gpus,duration,gpu_type\na,0,1,10,A100||H100\n"),
                    Catch::Contains("column 'gpu_type': expected a GPU type, or several "
                                    "separated by '|', got 'A100||H100'"));
}

TEST_CASE("mig: every built-in policy keeps the contract and valid layouts", "[mig][contract]") {
  const std::vector<std::string> profiles = {"1g.10gb", "1g.20gb", "2g.20gb",
                                             "3g.40gb", "4g.40gb", "7g.80gb"};
  std::vector<PolicyContractCase> cases;
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    Rng rng(seed);
    std::string csv =
        "id,submit_time,gpus,duration,walltime,priority,gpu_milli,cpu_milli,mig_profile\n";
    for (int j = 0; j < 80; ++j) {
      const auto kind = rng.uniform_int(0, 2);  // MIG slice, fraction, whole GPUs
      const std::int64_t duration = rng.uniform_int(1, 200);
      csv += fmt::format(
          "j{},{},{},{},{},{},{},{},{}\n", j, rng.uniform_int(0, 400),
          kind == 2 ? rng.uniform_int(1, 4) : 1, duration, duration + rng.uniform_int(0, 50),
          rng.uniform_int(0, 3), kind == 1 ? std::to_string(rng.uniform_int(1, 999)) : "",
          rng.uniform_int(0, 8) * 1000,
          kind == 0 ? profiles[static_cast<std::size_t>(rng.uniform_int(0, 5))] : "");
    }
    cases.push_back(
        {fmt::format("mig {}", seed), trace_from_csv(csv, "mig.csv"), mig_cluster(2, 1, 4)});
  }
  for (const auto& info : registered_policies()) {
    if (info.name.rfind("py:", 0) == 0) continue;
    for (const TimeMs reconfig_ms : {TimeMs{0}, TimeMs{3000}}) {
      PolicyContractVariant variant{fmt::format("mig reconfig {} ms", reconfig_ms),
                                    sharing(reconfig_ms)};
      for (const auto& c : cases) {
        INFO(info.name << " / " << variant.name << " / " << c.name);
        CHECK(policy_contract_problem(info.name, c, variant, {}) == "");
      }
    }
  }
}
