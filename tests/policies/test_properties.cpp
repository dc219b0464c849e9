// Property tests on random traces (seeded, a few hundred small runs in all):
// - EASY never starts the reserved job later than its reservation;
// - conservative never starts a job later than any reservation it was given (on clusters
//   where counting GPUs is exact: one node, 1-GPU nodes, whole-node jobs);
// - preemptive never preempts a job of equal or higher priority, a non-preemptible job, or a
//   job inside min_runtime;
// - the lost work in jobs.csv and summary.json equals the checkpoint arithmetic re-derived
//   from the job transitions.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include "policies/policy_support.hpp"
#include "support/invariant_observer.hpp"

using namespace schedlab;
using namespace schedlab::testing;

namespace {

// Runs `policy` with reservation recording and checks every job against its promises.
void check_reservations_kept(const std::string& policy, const std::string& csv,
                             const std::string& cluster, std::size_t& promises) {
  const Trace trace = trace_from_csv(csv);
  auto policy_object = make_policy(policy);
  const auto* source = dynamic_cast<const ReservationSource*>(policy_object.get());
  REQUIRE(source != nullptr);
  ReservationRecorder recorder(*source);
  InvariantObserver invariants;
  const Cluster built(parse_cluster_spec(cluster));
  Engine engine(trace, built, *policy_object, RunOptions{});
  engine.add_observer(invariants);
  engine.add_observer(recorder);
  engine.run();
  for (const auto& [job, times] : recorder.promised()) {
    const TimeMs started_ms = engine.states()[job].first_start_ms;
    for (TimeMs promised_ms : times) {
      INFO(policy << " on " << cluster << ": job " << trace.jobs[job].id << " promised "
                  << promised_ms << " ms, started " << started_ms << " ms\n"
                  << csv);
      CHECK(started_ms <= promised_ms);
      ++promises;
    }
  }
}

// Checks each preemption against the job that caused it: all transitions of one instant
// are collected and judged when time advances.
class PreemptionJudge : public Observer {
 public:
  explicit PreemptionJudge(TimeMs min_runtime_ms) : min_runtime_ms_(min_runtime_ms) {}
  void on_job(const RunView& ctx, JobIndex job, JobTransition what) override {
    if (what == JobTransition::kPreempted) {
      const JobState& s = ctx.state(job);
      CHECK(ctx.spec(job).preemptible);
      CHECK(ctx.now() - s.last_start_ms >= min_runtime_ms_);
      victims_.push_back(job);
      ++preemptions_;
    } else if (what == JobTransition::kStarted) {
      started_.push_back(job);
    }
  }
  void on_advance(const RunView& ctx, TimeMs /*from_ms*/, TimeMs /*to_ms*/) override { judge(ctx); }
  void on_end(const RunView& ctx) override { judge(ctx); }
  std::uint64_t preemptions() const { return preemptions_; }

 private:
  void judge(const RunView& ctx) {
    std::int64_t top = std::numeric_limits<std::int64_t>::min();
    for (JobIndex j : started_) top = std::max(top, ctx.spec(j).priority);
    for (JobIndex v : victims_) {
      INFO("job " << ctx.spec(v).id << " preempted at " << ctx.now() << " ms");
      CHECK(ctx.spec(v).priority < top);
    }
    victims_.clear();
    started_.clear();
  }
  TimeMs min_runtime_ms_;
  std::vector<JobIndex> victims_;
  std::vector<JobIndex> started_;
  std::uint64_t preemptions_ = 0;
};

}  // namespace

TEST_CASE("easy-backfill never starts the reserved job later than its reservation",
          "[policies][properties][easy]") {
  Rng rng(7);
  std::size_t promises = 0;
  for (int round = 0; round < 40; ++round) {
    RandomTraceSpec spec;
    spec.jobs = 40;
    spec.max_gpus = round % 2 == 0 ? 8 : 12;
    spec.mean_interarrival_s = 8;
    spec.max_overestimate = round % 3 == 0 ? 1.0 : 4.0;
    const std::string cluster = round % 2 == 0 ? "3x4" : "2x8";
    check_reservations_kept("easy-backfill", random_trace_csv(rng, spec), cluster, promises);
  }
  CHECK(promises > 100);  // the property was exercised
}

TEST_CASE("conservative-backfill never starts a job later than its reservation",
          "[policies][properties][conservative]") {
  Rng rng(11);
  std::size_t promises = 0;
  for (int round = 0; round < 36; ++round) {
    RandomTraceSpec spec;
    spec.jobs = 40;
    spec.mean_interarrival_s = 8;
    spec.max_overestimate = round % 3 == 0 ? 1.0 : 4.0;
    std::string cluster;
    switch (round % 3) {
      case 0:
        cluster = "1x16";
        spec.max_gpus = 12;
        break;
      case 1:
        cluster = "12x1";
        spec.max_gpus = 8;
        break;
      default:
        cluster = "4x4";
        spec.max_gpus = 12;
        spec.whole_nodes_of = true;
        spec.node_gpus = 4;
        break;
    }
    check_reservations_kept("conservative-backfill", random_trace_csv(rng, spec), cluster,
                            promises);
  }
  CHECK(promises > 300);
}

TEST_CASE("preemptive never preempts an equal or higher priority job",
          "[policies][properties][preemptive]") {
  Rng rng(13);
  std::uint64_t preemptions = 0;
  for (int round = 0; round < 30; ++round) {
    RandomTraceSpec spec;
    spec.jobs = 40;
    spec.max_gpus = 8;
    spec.mean_interarrival_s = 6;
    spec.priorities = 4;
    spec.preemptible_share = 0.75;
    spec.max_overestimate = 2.0;
    const TimeMs min_runtime_ms = round % 2 == 0 ? 0 : 15'000;
    const Trace trace = trace_from_csv(random_trace_csv(rng, spec));
    InvariantObserver invariants;
    PreemptionJudge judge(min_runtime_ms);
    std::map<std::string, std::string> params = {
        {"min_runtime", std::to_string(min_runtime_ms / 1000)}};
    if (round % 3 == 0) params["blocking"] = "false";
    run_engine(trace, "3x4", "preemptive", params, RunOptions{}, {&invariants, &judge});
    preemptions += judge.preemptions();
  }
  CHECK(preemptions > 20);
}

TEST_CASE("lost work equals the checkpoint arithmetic", "[policies][properties][restarts]") {
  Rng rng(17);
  std::uint64_t preempted_jobs = 0;
  for (int round = 0; round < 24; ++round) {
    RandomTraceSpec spec;
    spec.jobs = 30;
    spec.max_gpus = 8;
    spec.mean_interarrival_s = 6;
    spec.priorities = 3;
    spec.max_overestimate = 3.0;
    RunOptions options;
    options.checkpoint_interval_ms = std::vector<TimeMs>{0, 7'000, 25'000}[round % 3];
    options.restart_overhead_ms = std::vector<TimeMs>{0, 3'000, 30'000, 12'500}[round % 4];
    const std::string policy = round % 2 == 0 ? "preemptive" : "las";
    INFO(policy << " round " << round << " interval " << options.checkpoint_interval_ms
                << " overhead " << options.restart_overhead_ms);
    std::map<std::string, std::string> params;
    if (policy == "las") params = {{"thresholds", "60,600"}, {"starvation", "2"}};
    const Trace trace = trace_from_csv(random_trace_csv(rng, spec));
    InvariantObserver invariants;
    LostWorkOracle oracle;
    SimulationRequest request;
    request.policy = policy;
    request.params = params;
    request.options = options;
    request.reproducible = true;
    const auto result = simulate(trace, parse_cluster_spec("2x4"), request, {&invariants, &oracle});
    const auto ids = jobs_column(result.jobs_csv, "job_id");
    const auto lost = jobs_column(result.jobs_csv, "lost_gpu_seconds");
    const auto preempted = jobs_column(result.jobs_csv, "preemptions");
    double total_lost_s = 0;
    for (std::size_t j = 0; j < ids.size(); ++j) {
      INFO(policy << " round " << round << ", job " << ids[j]);
      const TimeMs expected_ms = oracle.lost_gpu_ms()[j];
      CHECK(lost[j] == fmt::format("{:.3f}", static_cast<double>(expected_ms) / 1000.0));
      total_lost_s += static_cast<double>(expected_ms) / 1000.0;
      if (preempted[j] != "0") ++preempted_jobs;
    }
    CHECK(result.summary["gpu_hours"]["lost"].get<double>() ==
          Approx(total_lost_s / 3600.0).margin(1e-6));
  }
  CHECK(preempted_jobs > 20);
}
