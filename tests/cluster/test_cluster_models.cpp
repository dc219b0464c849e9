// Cluster models with hand-computed expectations: placement-dependent speed, failures and
// repairs, node power states and energy, carbon, topology distances and topology placement,
// and their input errors. Definitions: docs/cluster.md.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <memory>

#include <fmt/format.h>

#include "cluster/cluster_support.hpp"
#include "schedlab/carbon.hpp"
#include "schedlab/engine.hpp"
#include "schedlab/error.hpp"
#include "schedlab/failure_model.hpp"
#include "schedlab/network_topology.hpp"
#include "schedlab/placement_strategy.hpp"
#include "schedlab/speed_model.hpp"
#include "support/builders.hpp"
#include "support/invariant_observer.hpp"

using namespace schedlab;
using namespace schedlab::testing;

namespace {

// Two racks of two 4-GPU nodes; nodes 0-1 in r1, 2-3 in r2.
const std::string kTwoRacks = R"({
  "gpu_types": [{"name": "G", "idle_watts": 10, "busy_watts": 100}],
  "node_groups": [
    {"count": 2, "gpus_per_node": 4, "gpu_type": "G", "rack": "r1"},
    {"count": 2, "gpus_per_node": 4, "gpu_type": "G", "rack": "r2"}
  ],
  "comm_factors": {"cross_rack": {"high": 2.5}}
})";

// Two 4-GPU nodes with round power figures: GPUs 10 W idle, 100 W busy; node base 400 W, off 20 W.
const std::string kPowerPair = R"({
  "gpu_types": [{"name": "T", "idle_watts": 10, "busy_watts": 100}],
  "node_groups": [{"count": 2, "gpus_per_node": 4, "gpu_type": "T", "base_watts": 400, "off_watts": 20}]
})";

std::shared_ptr<const FailureTrace> failure_file(const std::string& csv) {
  return std::make_shared<const FailureTrace>(parse_failure_trace("failures.csv", csv));
}

double value(const SimulationResult& r, const std::string& object, const std::string& key) {
  return r.summary.at(object).at(key).get<double>();
}

std::string timeseries_row(const SimulationResult& r, const std::string& time_s) {
  const std::string& csv = r.timeseries_csv;
  const auto at = csv.find("\n" + time_s + ",");
  REQUIRE(at != std::string::npos);
  return csv.substr(at + 1, csv.find('\n', at + 1) - at - 1);
}

}  // namespace

// ---------------------------------------------------------------- placement-dependent speed

TEST_CASE(
    "speed: a job spread over two racks runs at 1/cross-rack factor, packed jobs at full speed",
    "[cluster-model][speed]") {
  // big (12 GPUs, comm high) needs 3 nodes: pack takes nodes 0, 1 (r1) and 2 (r2), so it
  // crosses racks: slowdown 2.5 (the JSON's override); 1000 s of work takes 2500 s.
  // small (4 GPUs) sits on node 3 alone: 100 s. mid (8 GPUs, comm medium) arrives after big
  // ends: nodes 0-1, one rack, the default intra-rack medium factor 1.41: 141 s.
  RunOptions options;
  options.speed_model = SpeedModel::kComm;
  options.walltime_kill = false;
  const std::string csv =
      "id,submit_time,gpus,duration,comm\n"
      "big,0,12,1000,high\n"
      "small,0,4,100,high\n"
      "mid,3000,8,100,medium\n";
  const auto r = run_models(csv, kTwoRacks, options);
  using Row = std::map<std::string, std::string>;
  CHECK(column_of(r, "finish_time") ==
        Row{{"big", "2500.000"}, {"small", "100.000"}, {"mid", "3141.000"}});
  CHECK(column_of(r, "slowdown_factor") ==
        Row{{"big", "2.500000"}, {"small", "1.000000"}, {"mid", "1.410000"}});
  CHECK(column_of(r, "nodes") == Row{{"big", "3"}, {"small", "1"}, {"mid", "2"}});
  CHECK(column_of(r, "allocated_resources").at("big") == "0-11");
  // The same jobs with the model off run at reference speed.
  const auto plain = run_checked(trace_from_csv(csv), "4x4");
  CHECK(jobs_column(plain.jobs_csv, "finish_time") ==
        std::vector<std::string>{"1000.000", "100.000", "3100.000"});

  SECTION("walltimes do not know about slowdowns: with the kill on, big is killed at 1000 s") {
    options.walltime_kill = true;
    const auto killed = run_models(csv, kTwoRacks, options);
    CHECK(column_of(killed, "final_state").at("big") == "COMPLETED_WALLTIME_REACHED");
    CHECK(column_of(killed, "finish_time").at("big") == "1000.000");
  }
}

TEST_CASE("speed: GPU types set the speed, per-job speeds override, the slowest GPU wins",
          "[cluster-model][speed]") {
  // V100 speed 0.5 (built-in), A100 1.0. a: 100 s on a V100 node: 200 s. b overrides V100 to
  // 0.8: 125 s. c (8 GPUs) spans the V100 and the A100 node: the V100 sets the pace: 200 s.
  RunOptions options;
  options.speed_model = SpeedModel::kGpu;
  options.walltime_kill = false;
  const auto r = run_models(
      "id,submit_time,gpus,duration,gpu_type,speeds\n"
      "a,0,4,100,V100,\n"
      "b,1000,4,100,V100,V100=0.8;H100=3\n"
      "c,2000,8,100,,\n",
      "1x4:V100,1x4:A100", options);
  using Row = std::map<std::string, std::string>;
  CHECK(column_of(r, "execution_time") ==
        Row{{"a", "200.000"}, {"b", "125.000"}, {"c", "200.000"}});
  CHECK(column_of(r, "slowdown_factor") ==
        Row{{"a", "2.000000"}, {"b", "1.250000"}, {"c", "2.000000"}});
}

TEST_CASE("speed: an interruption keeps floor(progress) of reference work",
          "[cluster-model][speed]") {
  // j runs on nodes 0-1 (rack r1) at slowdown 1.5 (intra-rack, comm high overridden), with
  // checkpoints at every 40 s of work. Node 1 fails at t=100: progress = floor(100000 ms / 1.5)
  // = 66666 ms of work; the last checkpoint is at 40 s, so 26.666 s x 8 GPUs are lost (the
  // first attempt had no overhead). pack restarts it at once on nodes 0 and 2, across racks
  // (default cross-rack high factor 2.6): 30 s overhead, then 60 s of work take 156 s: 286 s.
  const std::string cluster = R"({
    "node_groups": [{"count": 2, "gpus_per_node": 4, "rack": "r1"}, {"count": 2, "gpus_per_node": 4, "rack": "r2"}],
    "comm_factors": {"intra_rack": {"high": 1.5}}
  })";
  RunOptions options;
  options.speed_model = SpeedModel::kComm;
  options.walltime_kill = false;
  options.checkpoint_interval_ms = 40'000;
  options.failure_trace = failure_file("node,down_time,up_time\n1,100,5000\n");
  const auto r =
      run_models("id,submit_time,gpus,duration,comm\nj,0,8,100,high\n", cluster, options);
  CHECK(column_of(r, "finish_time").at("j") == "286.000");
  CHECK(column_of(r, "lost_gpu_seconds").at("j") == "453.328");  // 26.666 s x 8 + 30 s x 8
  CHECK(column_of(r, "allocated_resources").at("j") == "0-3 8-11");
  CHECK(column_of(r, "slowdown_factor").at("j") == "2.600000");
  CHECK(column_of(r, "failures").at("j") == "1");
}

TEST_CASE("speed: progress and work-time arithmetic", "[cluster-model][speed]") {
  CHECK(work_time_ms(100'000, 1.41) == 141'000);
  CHECK(work_time_ms(7, 1.5) == 11);  // ceil(10.5)
  CHECK(progress_at_slowdown(10, 7, 1.5) == 6);
  CHECK(progress_at_slowdown(11, 7, 1.5) == 7);
  CHECK(progress_at_slowdown(1'000, 7, 1.5) == 7);
  CHECK(progress_at_slowdown(0, 7, 1.5) == 0);
  CHECK(work_time_ms(5, 1.0) == 5);
}

// ---------------------------------------------------------------------- failures and repairs

TEST_CASE("failures: a failed node's job loses the work since its last checkpoint and restarts",
          "[cluster-model][failures]") {
  // a runs on node 0 from 0 with checkpoints every 300 s of work. Node 0 fails at 500: the
  // work since the checkpoint at 300 s is lost (200 s x 4 GPUs); a restarts at once on node 1,
  // pays the 30 s overhead and redoes 700 s: it ends at 1230. Node 0 is down over [500, 1230)
  // of the run window: 730 s x 4 GPUs.
  RunOptions options;
  options.failure_trace = failure_file("node,down_time,up_time\n0,500,10000\n");
  const auto r = run_models("id,submit_time,gpus,duration,checkpoint_interval\na,0,4,1000,300\n",
                            "2x4", options);
  CHECK(column_of(r, "finish_time").at("a") == "1230.000");
  CHECK(column_of(r, "allocated_resources").at("a") == "4-7");
  CHECK(column_of(r, "lost_gpu_seconds").at("a") == "920.000");  // 800 + 30 s x 4 overhead
  CHECK(column_of(r, "restarts").at("a") == "1");
  CHECK(column_of(r, "failures").at("a") == "1");
  CHECK(column_of(r, "preemptions").at("a") == "0");
  CHECK(column_of(r, "final_state").at("a") == "COMPLETED_SUCCESSFULLY");
  CHECK(r.summary["restarts"]["failures"] == 1);
  CHECK(r.summary["restarts"]["total"] == 1);
  CHECK(r.summary["restarts"]["preemptions"] == 0);
  CHECK(value(r, "gpu_hours", "down") == Approx(2920.0 / 3600).margin(1e-6));
  CHECK(value(r, "gpu_hours", "lost") == Approx(920.0 / 3600).margin(1e-6));

  SECTION("without periodic checkpoints the job restarts from zero") {
    const auto zero =
        run_models("id,submit_time,gpus,duration,walltime\na,0,4,1000,2000\n", "2x4", options);
    CHECK(column_of(zero, "finish_time").at("a") == "1530.000");       // 500 + 30 + 1000
    CHECK(column_of(zero, "lost_gpu_seconds").at("a") == "2120.000");  // 500 x 4 + 30 x 4
  }
}

TEST_CASE("failures: a queued job waits for a repair instead of failing as stuck",
          "[cluster-model][failures]") {
  // The only node is down from before the first arrival (10 s) until 200 s.
  RunOptions options;
  options.failure_trace = failure_file("node,down_time,up_time\n0,0,200\n");
  NodeStateObserver nodes;
  const auto r =
      run_models("id,submit_time,gpus,duration\na,10,4,100\n", "1x4", options, "fifo", &nodes);
  CHECK(column_of(r, "starting_time").at("a") == "200.000");
  REQUIRE(nodes.changes().size() == 2);
  CHECK(nodes.changes()[0].time_ms == 10'000);
  CHECK(nodes.changes()[0].to == NodeState::kDown);
  CHECK(nodes.changes()[1].time_ms == 200'000);
  CHECK(nodes.changes()[1].to == NodeState::kOn);
  CHECK(value(r, "gpu_hours", "down") == Approx(190.0 * 4 / 3600).margin(1e-6));
}

TEST_CASE("failures: back-to-back outages in a failure trace keep the node down throughout",
          "[cluster-model][failures]") {
  // The second outage starts the instant the first ends: the node must not come up at 100 s.
  RunOptions options;
  options.failure_trace = failure_file("node,down_time,up_time\n0,0,100\n0,100,300\n");
  NodeStateObserver nodes;
  const auto r =
      run_models("id,submit_time,gpus,duration\na,10,4,50\n", "1x4", options, "fifo", &nodes);
  CHECK(column_of(r, "starting_time").at("a") == "300.000");
  REQUIRE(nodes.changes().size() == 2);
  CHECK(nodes.changes()[0].to == NodeState::kDown);
  CHECK(nodes.changes()[1].time_ms == 300'000);
  CHECK(nodes.changes()[1].to == NodeState::kOn);
  CHECK(value(r, "gpu_hours", "down") == Approx(290.0 * 4 / 3600).margin(1e-6));
}

TEST_CASE("failures: a job that can never reach a checkpoint stops the run (exit 3), not a loop",
          "[cluster-model][failures]") {
  // Failures every ~86 s on the only node; 10 h of work, no checkpoints: it restarts from zero
  // forever. The engine gives up after 10,000 fruitless failures.
  RunOptions options;
  parse_failures_option("rate=1000000,repair=0.001,seed=1", options);
  options.walltime_kill = false;
  try {
    run_models("id,submit_time,gpus,duration\na,0,8,36000\n", "1x8", options);
    FAIL("the run ended");
  } catch (const StuckError& e) {
    CHECK_THAT(e.what(), Catch::Matchers::Contains("job 'a' failed 10000 times in a row without "
                                                   "reaching a new checkpoint (0 s of its 36000 s "
                                                   "saved)"));
  }
  // With a checkpoint interval shorter than the gaps it finishes.
  options.checkpoint_interval_ms = 1'000;
  options.restart_overhead_ms = 0;
  const auto r = run_models("id,submit_time,gpus,duration\na,0,8,36000\n", "1x8", options);
  CHECK(column_of(r, "final_state").at("a") == "COMPLETED_SUCCESSFULLY");
}

TEST_CASE("failures: generated failures are deterministic with the seed and end with the jobs",
          "[cluster-model][failures]") {
  RunOptions options;
  parse_failures_option("rate=100000,repair=0.1,seed=7", options);
  options.checkpoint_interval_ms = 60'000;
  options.walltime_kill = false;
  std::string csv = "id,submit_time,gpus,duration\n";
  for (int i = 0; i < 40; ++i)
    csv += fmt::format("j{},{},{},{}\n", i, i * 30, 1 + i % 8, 200 + 37 * (i % 5));
  const auto a = run_models(csv, "4x8", options);
  const auto b = run_models(csv, "4x8", options);
  CHECK(a.jobs_csv == b.jobs_csv);
  CHECK(a.summary.dump() == b.summary.dump());
  CHECK(a.summary["restarts"]["failures"].get<int>() > 0);
  CHECK(a.summary["options"]["failures"] == "rate=100000,repair=0.1,seed=7");
  // At 100 failures per node-day, a 4-node cluster fails about once every 216 s: the run spans
  // a few thousand seconds, so the event count stays small and finite.
  CHECK(a.engine.events < 500);
  options.failure_seed = 8;
  const auto c = run_models(csv, "4x8", options);
  CHECK(c.jobs_csv != a.jobs_csv);
}

TEST_CASE("failures: effective time ratio of a long N-node job matches 1 - N r (u + T/2)",
          "[cluster-model][failures][theory]") {
  // r = 0.1 failures per node-day, N = 16 nodes, checkpoints every T = 1 h of work, restart
  // overhead u = 30 min: N r (u + T/2) = 16 x 0.1 / 24 h x 1 h = 0.0667. Spare nodes let the
  // job restart at once; repairs take 1 h. 4000 days of work see about 6400 failures, so the
  // measured ratio is within about 0.003 of its expectation; the first-order formula differs
  // from the exact expectation by O((N r (u + T/2))^2), about 0.005 here.
  RunOptions options;
  parse_failures_option("rate=100,repair=1,seed=11", options);
  options.checkpoint_interval_ms = 3'600'000;
  options.restart_overhead_ms = 1'800'000;
  options.walltime_kill = false;
  const double duration_s = 4000.0 * 86400;
  const auto r = run_models(
      fmt::format("id,submit_time,gpus,duration\nlong,0,128,{}\n", duration_s), "48x8", options);
  const double finish_s = std::stod(column_of(r, "finish_time").at("long"));
  const double ratio = duration_s / finish_s;
  const double expected = 1.0 - 16 * (0.1 / 24.0) * (0.5 + 1.0 / 2);
  CHECK(ratio == Approx(expected).margin(0.01));
  CHECK(ratio < 1.0);
  // Failures hit the job at N r per unit of wall time (it always runs: spares restart it).
  const double failures = std::stod(column_of(r, "failures").at("long"));
  CHECK(failures == Approx(16 * 0.1 * finish_s / 86400).epsilon(0.05));
}

// ------------------------------------------------------------------------ energy and power

TEST_CASE("energy: a powered-off node draws its off power, a queued job wakes it",
          "[cluster-model][energy]") {
  // a holds node 0 over [0, 1000). Node 1 is idle and turns off at 100. b arrives at 500 and
  // finds no free GPU: the engine wakes node 1, which boots over [500, 800); b runs [800, 900).
  // Over the window [0, 1000):
  //   GPU busy   4 x 100 W x 1000 s + 4 x 100 W x 100 s          = 440000 J
  //   GPU idle   node 1 on and idle over [0,100) and [900,1000): 4 x 10 W x 200 s = 8000 J
  //   node base  node 0: 400 W x 1000 s; node 1 on for 300 s     = 520000 J
  //   off        node 1 over [100, 500): 20 W x 400 s           = 8000 J
  //   boot       (400 W + 4 x 10 W) x 300 s                      = 132000 J
  //   total 1108000 J = 0.307778 kWh
  RunOptions options;
  options.node_power = true;
  options.power_off_idle_ms = 100'000;
  options.timeseries_interval_ms = 100'000;
  NodeStateObserver nodes;
  const std::string csv = "id,submit_time,gpus,duration\na,0,4,1000\nb,500,4,100\n";
  const auto r = run_models(csv, kPowerPair, options, "fifo", &nodes);
  CHECK(column_of(r, "starting_time").at("b") == "800.000");
  const auto& e = r.summary["energy_kwh"];
  CHECK(e["gpu_busy"].get<double>() == Approx(440000 / 3.6e6).margin(1e-6));
  CHECK(e["gpu_idle"].get<double>() == Approx(8000 / 3.6e6).margin(1e-6));
  CHECK(e["node_base"].get<double>() == Approx(520000 / 3.6e6).margin(1e-6));
  CHECK(e["off"].get<double>() == Approx(8000 / 3.6e6).margin(1e-6));
  CHECK(e["boot"].get<double>() == Approx(132000 / 3.6e6).margin(1e-6));
  CHECK(e["facility"].get<double>() == 0.0);
  CHECK(e["total"].get<double>() == Approx(1108000 / 3.6e6).margin(1e-6));
  // Per job: its GPUs' busy power plus its share of its node's base power.
  CHECK(column_of(r, "consumed_energy") ==
        std::map<std::string, std::string>{{"a", "800000.000"}, {"b", "80000.000"}});
  CHECK(value(r, "gpu_hours", "off") ==
        Approx(4.0 * 700 / 3600).margin(1e-6));  // off 400 s + boot 300 s
  // Node 1: off at 100, booting at 500, on at 800, off again at 1000 (after the window).
  REQUIRE(nodes.changes().size() >= 3);
  CHECK(nodes.changes()[0].time_ms == 100'000);
  CHECK(nodes.changes()[0].to == NodeState::kOff);
  CHECK(nodes.changes()[1].time_ms == 500'000);
  CHECK(nodes.changes()[1].to == NodeState::kBooting);
  CHECK(nodes.changes()[2].time_ms == 800'000);
  CHECK(nodes.changes()[2].to == NodeState::kOn);
  // Timeseries: power follows every state; nodes_off counts powered-off nodes.
  CHECK(
      r.timeseries_csv.starts_with("time_s,busy_gpus,idle_gpus,queued_jobs,queued_gpus,running_"
                                   "jobs,power_w,nodes_off,nodes_down\n"));
  CHECK(timeseries_row(r, "0.000") == "0.000,4.000,4.000,0.000,0.000,1.000,1240.000,0.000,0.000");
  CHECK(timeseries_row(r, "100.000") ==
        "100.000,4.000,4.000,0.000,0.000,1.000,820.000,1.000,0.000");
  CHECK(timeseries_row(r, "500.000") ==
        "500.000,4.000,4.000,1.000,4.000,1.000,1240.000,0.000,0.000");

  SECTION("PUE scales the total and the jobs' energy") {
    options.pue = 1.5;
    const auto p = run_models(csv, kPowerPair, options);
    CHECK(p.summary["energy_kwh"]["total"].get<double>() ==
          Approx(1.5 * 1108000 / 3.6e6).margin(1e-6));
    CHECK(p.summary["energy_kwh"]["facility"].get<double>() ==
          Approx(0.5 * 1108000 / 3.6e6).margin(1e-6));
    CHECK(column_of(p, "consumed_energy").at("a") == "1200000.000");
  }
}

TEST_CASE("energy: node base power defaults come from the GPU type, scaled by node size",
          "[cluster-model][energy]") {
  // A100 default: 3300 W base for an 8-GPU node, 50 W off; a 4-GPU node draws 1650 W.
  const Cluster cluster(parse_cluster_spec("1x8:A100,1x4:A100"));
  CHECK(cluster.groups()[0].base_power_w == 3300.0);
  CHECK(cluster.groups()[1].base_power_w == 1650.0);
  CHECK(cluster.groups()[1].off_power_w == 50.0);
  RunOptions options;
  options.node_power = true;
  const auto r = run_models("id,submit_time,gpus,duration\na,0,8,3600\n", "1x8:A100", options);
  // 8 x 400 W busy + 3300 W base for one hour.
  CHECK(r.summary["energy_kwh"]["total"].get<double>() == Approx(6.5).margin(1e-6));
  CHECK(r.summary["energy_kwh"]["node_base"].get<double>() == Approx(3.3).margin(1e-6));
}

TEST_CASE("energy: a policy may wake nodes itself", "[cluster-model][energy]") {
  // A policy that wakes every off node whenever it runs, then starts jobs in order.
  class Waker final : public Policy {
   public:
    void schedule(const SchedContext& ctx, Decisions& decisions) override {
      for (NodeIndex n = 0; n < ctx.cluster().node_count(); ++n)
        if (ctx.cluster().node_state(n) == NodeState::kOff) decisions.wake_node(n);
      for (JobIndex j = 0; j < ctx.job_count(); ++j)
        if (ctx.job(j).status() == JobStatus::kQueued) decisions.try_start(j);
    }
  };
  const Trace trace = trace_from_csv("id,submit_time,gpus,duration\na,0,4,50\nb,100,2,10\n");
  const Cluster cluster(parse_cluster_spec("2x4"));
  RunOptions options;
  options.power_off_idle_ms = 20'000;
  options.boot_time_ms = 60'000;
  Waker policy;
  Engine engine(trace, cluster, policy, options);
  NodeStateObserver nodes;
  InvariantObserver invariants;
  engine.add_observer(nodes);
  engine.add_observer(invariants);
  engine.run();
  // Both nodes turn off (node 1 at 20, node 0 at 70); b at 100 makes the policy wake both; they
  // are on at 160, when b starts.
  CHECK(engine.states()[1].first_start_ms == 160'000);
  CHECK(nodes.count(NodeState::kBooting) == 2);
  CHECK_THROWS_AS(
      [&] {
        class Bad final : public Policy {
         public:
          void schedule(const SchedContext&, Decisions& decisions) override {
            decisions.wake_node(99);
          }
        } bad;
        Engine e(trace, cluster, bad, options);
        e.run();
      }(),
      PolicyError);
}

TEST_CASE("carbon: emissions integrate facility power against the intensity series",
          "[cluster-model][energy]") {
  // 1000 W for one hour: 0.5 kWh at 100 g/kWh, then 0.5 kWh at 300 g/kWh = 200 g.
  RunOptions options;
  options.carbon = std::make_shared<const CarbonSeries>(
      parse_carbon_series("grid.csv", "time,gco2_per_kwh\n0,100\n1800,300\n"));
  const auto r = run_models("id,submit_time,gpus,duration\na,0,1,3600\n",
                            R"({"gpu_types": [{"name": "T", "idle_watts": 0, "busy_watts": 1000}],
                                "node_groups": [{"count": 1, "gpus_per_node": 1, "gpu_type": "T"}]})",
                            options);
  CHECK(r.summary["emissions_kg"].get<double>() == Approx(0.2).margin(1e-9));
  CHECK(r.summary["energy_kwh"]["total"].get<double>() == Approx(1.0).margin(1e-9));
  std::size_t cursor = 0;
  const auto& series = *options.carbon;
  CHECK(series.grams(1000, -3'600'000, 0, cursor) == Approx(100.0));  // before the first row
  CHECK(series.grams(1000, 0, 7'200'000, cursor) == Approx(50.0 + 450.0));
}

// ---------------------------------------------------------------------- topology (Boost.Graph)

TEST_CASE("topology: hops, bottleneck bandwidth and levels from the Boost.Graph hierarchy",
          "[cluster-model][topology]") {
  // Pod p1: racks a-0 (nodes 0-1) and a-1 (nodes 2-3); pod p2: rack b (nodes 4-5); rack x
  // hangs under the spine (nodes 6-7; node 6 has a 50 Gb/s uplink; node 7 has two NVLink
  // domains of 4 GPUs).
  const Cluster cluster(parse_cluster_json_text(R"({
    "topology": {"nvlink_gbps": 900, "intra_node_gbps": 64, "node_uplink_gbps": 100,
                 "rack_uplink_gbps": 400, "pod_uplink_gbps": 80},
    "node_groups": [
      {"count": 4, "gpus_per_node": 8, "rack": "a", "nodes_per_rack": 2, "pod": "p1"},
      {"count": 2, "gpus_per_node": 8, "rack": "b", "pod": "p2"},
      {"count": 1, "gpus_per_node": 8, "rack": "x", "uplink_gbps": 50},
      {"count": 1, "gpus_per_node": 8, "rack": "x", "nvlink_domain_gpus": 4}
    ]})",
                                                "topo.json"));
  const Topology& t = cluster.topology();
  CHECK(t.rack_count() == 4);
  CHECK(t.pod_count() == 2);
  CHECK(t.unit_count() == 3);
  CHECK(cluster.rack_name(cluster.node(2).rack) == "a-1");
  // Graph: spine, 2 pods, 4 racks, 8 nodes, 9 NVLink domains; a tree.
  CHECK(t.vertex_count() == 24);
  CHECK(t.edge_count() == 23);
  CHECK(t.hops(3, 3) == 0);
  CHECK(t.bottleneck_gbps(3, 3) == 900.0);
  CHECK(t.hops(0, 1) == 2);
  CHECK(t.bottleneck_gbps(0, 1) == 100.0);
  CHECK(t.level(0, 1) == LinkLevel::kIntraRack);
  CHECK(t.hops(0, 2) == 4);
  CHECK(t.bottleneck_gbps(0, 2) == 100.0);
  CHECK(t.level(0, 2) == LinkLevel::kCrossRack);
  CHECK(t.hops(0, 4) == 6);
  CHECK(t.bottleneck_gbps(0, 4) == 80.0);
  CHECK(t.level(0, 4) == LinkLevel::kCrossPod);
  CHECK(t.hops(0, 6) == 5);
  CHECK(t.bottleneck_gbps(0, 6) == 50.0);
  CHECK(t.level(0, 6) == LinkLevel::kCrossPod);
  CHECK(t.hops(6, 7) == 2);
  CHECK(t.level(6, 7) == LinkLevel::kIntraRack);
  CHECK(t.hops(4, 0) == t.hops(0, 4));
  CHECK(t.placement_level(cluster, {{7, 0x03}}) == LinkLevel::kNvlink);
  CHECK(t.placement_level(cluster, {{7, 0x18}}) == LinkLevel::kIntraNode);
  CHECK(t.placement_level(cluster, {{0, 0xFF}, {1, 0xFF}}) == LinkLevel::kIntraRack);
  CHECK(t.placement_level(cluster, {{0, 0xFF}, {2, 0xFF}, {3, 0xFF}}) == LinkLevel::kCrossRack);
  CHECK(t.placement_level(cluster, {{1, 0xFF}, {2, 0xFF}, {5, 0xFF}}) == LinkLevel::kCrossPod);
}

TEST_CASE("topology placement: fewest nodes, then fewest racks, then best fit",
          "[cluster-model][topology]") {
  // Four 4-GPU nodes whose racks alternate: nodes 0 and 2 in rack A, 1 and 3 in rack B.
  Cluster cluster(parse_cluster_json_text(R"({"node_groups": [
      {"count": 1, "gpus_per_node": 4, "rack": "A"}, {"count": 1, "gpus_per_node": 4, "rack": "B"},
      {"count": 1, "gpus_per_node": 4, "rack": "A"}, {"count": 1, "gpus_per_node": 4, "rack": "B"}]})",
                                          "alt.json"));
  const auto topology = make_placement("topology");
  const auto pack = make_placement("pack");
  // 8 GPUs: pack takes nodes 0 and 1 (two racks); topology keeps to rack A.
  CHECK(*pack->place(cluster, kAnyGpuType, 8) == Placement{{0, 0xF}, {1, 0xF}});
  CHECK(*topology->place(cluster, kAnyGpuType, 8) == Placement{{0, 0xF}, {2, 0xF}});
  // With 2 GPUs busy on node 3, a 6-GPU job fits two nodes in either rack; rack B leaves
  // nothing free on its last node (4 + 2), rack A would leave 2: rack B wins.
  cluster.allocate({{3, 0x3}});
  CHECK(*topology->place(cluster, kAnyGpuType, 6) == Placement{{1, 0xF}, {3, 0xC}});
  // 14 GPUs need all four nodes, whatever the racks.
  CHECK(*topology->place(cluster, kAnyGpuType, 14) ==
        Placement{{0, 0xF}, {1, 0xF}, {2, 0xF}, {3, 0xC}});
  CHECK(!topology->place(cluster, kAnyGpuType, 15));
  // 12 GPUs: three nodes; no rack holds 12, so racks are added (A first: ties by index).
  cluster.release({{3, 0x3}});
  CHECK(*topology->place(cluster, kAnyGpuType, 12) == Placement{{0, 0xF}, {1, 0xF}, {2, 0xF}});
}

TEST_CASE("topology placement: among equally many racks, one pod", "[cluster-model][topology]") {
  // Racks A and B in pod p1, C and D in pod p2, each of two 4-GPU nodes; by index A, C, B, D.
  const std::string groups = R"(
      {"count": 2, "gpus_per_node": 4, "rack": "A", "pod": "p1"},
      {"count": 2, "gpus_per_node": 4, "rack": "C", "pod": "p2"},
      {"count": 2, "gpus_per_node": 4, "rack": "B", "pod": "p1"},
      {"count": 2, "gpus_per_node": 4, "rack": "D", "pod": "p2"})";
  Cluster pods(parse_cluster_json_text(R"({"node_groups": [)" + groups + "]}", "pods.json"));
  REQUIRE(pods.pod_count() == 2);
  CHECK(pods.pod_of_rack(pods.node(4).rack) == 0);
  const auto topology = make_placement("topology");
  // 12 GPUs need three nodes and two racks: A and B (one pod), not A and C (two pods).
  CHECK(*topology->place(pods, kAnyGpuType, 12) == Placement{{0, 0xF}, {1, 0xF}, {4, 0xF}});
  // The same racks without pods: racks are added by index, A then C.
  std::string flat = groups;
  for (const char* pod : {R"(, "pod": "p1")", R"(, "pod": "p2")"})
    for (auto at = flat.find(pod); at != std::string::npos; at = flat.find(pod))
      flat.erase(at, std::string(pod).size());
  Cluster no_pods(parse_cluster_json_text(R"({"node_groups": [)" + flat + "]}", "flat.json"));
  CHECK(no_pods.pod_count() == 0);
  CHECK(*topology->place(no_pods, kAnyGpuType, 12) == Placement{{0, 0xF}, {1, 0xF}, {2, 0xF}});
  // With rack B's nodes busy, pod p1 cannot hold 12 GPUs; pod p2 (C + D) can, on as many
  // racks as the cross-pod choice (A + C), so it is taken.
  pods.allocate({{4, 0xF}, {5, 0xF}});
  CHECK(*topology->place(pods, kAnyGpuType, 12) == Placement{{2, 0xF}, {3, 0xF}, {6, 0xF}});
}

TEST_CASE("topology placement: a job stays inside one NVLink domain when one has room",
          "[cluster-model][topology]") {
  Cluster cluster(parse_cluster_json_text(
      R"({"node_groups": [{"count": 1, "gpus_per_node": 8, "nvlink_domain_gpus": 4}]})",
      "nv.json"));
  cluster.allocate({{0, 0x7}});  // GPUs 0-2 of domain 0
  CHECK(*make_placement("topology")->place(cluster, kAnyGpuType, 4) == Placement{{0, 0xF0}});
  CHECK(*make_placement("pack")->place(cluster, kAnyGpuType, 4) == Placement{{0, 0x78}});
  CHECK(*make_placement("topology")->place(cluster, kAnyGpuType, 1) == Placement{{0, 0x08}});
}

TEST_CASE("topology placement through the engine, with the communication model",
          "[cluster-model][topology]") {
  RunOptions options;
  options.placement = "topology";
  options.speed_model = SpeedModel::kComm;
  options.walltime_kill = false;
  const std::string alternating = R"({"node_groups": [
      {"count": 1, "gpus_per_node": 4, "rack": "A"}, {"count": 1, "gpus_per_node": 4, "rack": "B"},
      {"count": 1, "gpus_per_node": 4, "rack": "A"}, {"count": 1, "gpus_per_node": 4, "rack": "B"}]})";
  const std::string csv = "id,submit_time,gpus,duration,comm\nj,0,8,100,high\n";
  const auto topo = run_models(csv, alternating, options);
  CHECK(column_of(topo, "slowdown_factor").at("j") == "2.380000");  // one rack: intra-rack
  options.placement = "pack";
  const auto packed = run_models(csv, alternating, options);
  CHECK(column_of(packed, "slowdown_factor").at("j") == "2.600000");  // two racks: cross-rack
}

// ---------------------------------------------------------------------------- input errors

TEST_CASE("cluster-model inputs: bad rows and values are one-line errors",
          "[cluster-model][errors]") {
  auto message = [](auto&& f) -> std::string {
    try {
      f();
    } catch (const InputError& e) {
      return e.what();
    }
    return "(no error)";
  };
  CHECK(message([] {
          parse_failure_trace("f.csv", "node,down_time,up_time\n0,10,20\n1,30,25\n");
        }) == "f.csv:3: column 'up_time': expected seconds after down_time (30), got '25'");
  CHECK(message([] { parse_failure_trace("f.csv", "node,down_time\n0,1\n"); }) ==
        "f.csv:1: missing required column 'up_time' (required: node, down_time, up_time)");
  CHECK(message([] {
          parse_failure_trace("f.csv", "node,down_time,up_time\n0,10,50\n0,40,60\n");
        }) == "f.csv:3: node 0 fails at 40 s while still down from line 2 (until 50 s)");
  CHECK(message([] { parse_failure_trace("f.csv", "node,down_time,up_time\nx,1,2\n"); }) ==
        "f.csv:2: column 'node': expected a node index >= 0, got 'x'");
  CHECK(message([] {
          RunOptions o;
          o.failure_trace = failure_file("node,down_time,up_time\n5,1,2\n");
          run_models("id,submit_time,gpus,duration\na,0,1,1\n", "2x4", o);
        }) ==
        "failures.csv:2: column 'node': node 5 does not exist (the cluster has 2 nodes, numbered "
        "from 0)");
  CHECK(message([] {
          RunOptions o;
          parse_failures_option("rate=2,repiar=3", o);
        }) ==
        "--failures 'rate=2,repiar=3': unknown key 'repiar' (expected rate=R[,repair=H][,seed=S])");
  CHECK(message([] {
          RunOptions o;
          parse_failures_option("repair=3", o);
        }) == "--failures 'repair=3': rate is required (expected rate=R[,repair=H][,seed=S])");
  CHECK(message([] { parse_carbon_series("c.csv", "time,gco2_per_kwh\n10,5\n10,6\n"); }) ==
        "c.csv:3: column 'time': 10 is not after the previous row's time");
  CHECK(message([] { trace_from_csv("id,submit_time,gpus,duration,comm\na,0,1,1,loud\n"); }) ==
        "test.csv:2: column 'comm': expected none, low, medium or high, got 'loud'");
  CHECK(message([] { trace_from_csv("id,submit_time,gpus,duration,speeds\na,0,1,1,A100=0\n"); }) ==
        "test.csv:2: column 'speeds': expected TYPE=SPEED items separated by ';' with SPEED in "
        "0.001..1000, got "
        "'A100=0'");
  CHECK(message([] {
          parse_cluster_json_text(R"({"node_groups": [{"count": 1, "gpus_per_node": 8}],
        "comm_factors": {"cross_rack": {"high": 0.5}}})",
                                  "c.json");
        }) == "c.json: $.comm_factors.cross_rack.high: expected a number in 1..1000, got 0.5");
  CHECK(message([] {
          parse_cluster_json_text(R"({"node_groups": [{"count": 1, "gpus_per_node": 8}],
        "topology": {"spine_gbps": 5}})",
                                  "c.json");
        }) ==
        "c.json: $.topology.spine_gbps: unknown key (known: nvlink_gbps, intra_node_gbps, "
        "node_uplink_gbps, "
        "rack_uplink_gbps, pod_uplink_gbps)");
  CHECK(message([] {
          parse_cluster_json_text(R"({"node_groups": [{"count": 1, "gpus_per_node": 8,
        "nvlink_domain_gpus": 3}]})",
                                  "c.json");
        }) == "c.json: $.node_groups[0].nvlink_domain_gpus: 3 does not divide gpus_per_node (8)");
  CHECK(message([] {
          Cluster(parse_cluster_json_text(R"({"node_groups": [
        {"count": 1, "gpus_per_node": 8, "rack": "r", "pod": "p"},
        {"count": 1, "gpus_per_node": 8, "rack": "r", "pod": "q"}]})",
                                          "c.json"));
        }) == "c.json: rack 'r' is placed in pod 'p' and in pod 'q'");
}

TEST_CASE("cluster-model CLI: a bad failure trace exits 2 with FILE:LINE and writes nothing",
          "[cluster-model][errors][cli]") {
  const std::string dir = fresh_temp_dir("cluster-cli");
  const std::string failures = dir + "/failures.csv";
  std::ofstream(failures) << "node,down_time,up_time\n0,10,5\n";
  const std::string out = dir + "/out";
  const auto r = run_command(std::string(SCHEDLAB_BINARY) + " run --trace " + SCHEDLAB_SOURCE_DIR +
                             "/tests/golden/small.csv --cluster 4x8 --failure-trace " + failures +
                             " --out " + out);
  CHECK(r.exit_code == 2);
  CHECK(r.err ==
        failures + ":2: column 'up_time': expected seconds after down_time (10), got '5'\n");
  CHECK(!std::filesystem::exists(out + "/summary.json"));
  const auto ok =
      run_command(std::string(SCHEDLAB_BINARY) + " run --trace " + SCHEDLAB_SOURCE_DIR +
                  "/tests/golden/small.csv --cluster 4x8 --placement topology --speed-model full "
                  "--failures rate=500,seed=3 --node-power --pue 1.3 --power-off-idle 600 "
                  "--reproducible --json --out " +
                  out);
  CHECK(ok.exit_code == 0);
  CHECK(read_text(out + "/jobs.csv")
            .find(",status,tenant,gpu_type,queued_time,slowdown_factor,nodes,failures\n") !=
        std::string::npos);
  const auto bad =
      run_command(std::string(SCHEDLAB_BINARY) + " run --trace " + SCHEDLAB_SOURCE_DIR +
                  "/tests/golden/small.csv --cluster 4x8 --speed-model fast");
  CHECK(bad.exit_code == 2);
  CHECK(bad.err == "--speed-model 'fast': expected off, gpu, comm or full\n");
  // Values that used to be accepted with a silent meaning: PUE 0 ("the spec's"), a repeated
  // failures key (the last won), a positive time below 1 ms (0 = "never").
  const std::string base = std::string(SCHEDLAB_BINARY) + " run --trace " + SCHEDLAB_SOURCE_DIR +
                           "/tests/golden/small.csv --cluster 4x8 ";
  for (const auto& [flags, message] : std::vector<std::pair<std::string, std::string>>{
           {"--pue 0", "--pue 0: expected a number in 1..10\n"},
           {"--failures rate=1,rate=2",
            "--failures 'rate=1,rate=2': key 'rate' given twice (expected "
            "rate=R[,repair=H][,seed=S])\n"},
           {"--power-off-idle 0.0001",
            "--power-off-idle 0.0001: below the clock's resolution of 1 ms\n"}}) {
    const auto refused = run_command(base + flags + " --out " + dir + "/refused");
    INFO(flags);
    CHECK(refused.exit_code == 2);
    CHECK(refused.err == message);
    CHECK(!std::filesystem::exists(dir + "/refused"));
  }
}
