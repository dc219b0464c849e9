#include "schedlab/metrics.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "schedlab/carbon.hpp"
#include "schedlab/error.hpp"
#include "schedlab/failure_model.hpp"
#include "schedlab/output.hpp"
#include "schedlab/output_columns.hpp"
#include "schedlab/power_model.hpp"
#include "schedlab/run_option_table.hpp"
#include "schedlab/version.hpp"

namespace schedlab {

namespace {

constexpr double kJoulesPerKwh = 3.6e6;
constexpr TimeMs kBoundedSlowdownThresholdMs = 10'000;
// timeseries.csv's size limits (docs/metrics.md): rows, and cells (rows x columns, per-tenant
// and sharing columns included).
constexpr std::size_t kMaxSeriesRows = 5'000'000;
constexpr std::size_t kMaxSeriesCells = 25'000'000;

double seconds(TimeMs ms) {
  return static_cast<double>(ms) / kMsPerSecond;
}

// Mean and percentiles rounded to `decimals`; `wide` adds p90 and p99.
nlohmann::ordered_json distribution(std::vector<double> values, bool wide, int decimals) {
  nlohmann::ordered_json out;
  std::sort(values.begin(), values.end());
  const bool empty = values.empty();
  double sum = 0;
  for (double v : values) sum += v;
  auto p = [&](double q) { return empty ? 0.0 : round_to(percentile(values, q), decimals); };
  out["mean"] = empty ? 0.0 : round_to(sum / static_cast<double>(values.size()), decimals);
  out["p50"] = p(50);
  if (wide) out["p90"] = p(90);
  out["p95"] = p(95);
  if (wide) out["p99"] = p(99);
  out["max"] = empty ? 0.0 : round_to(values.back(), decimals);
  return out;
}

}  // namespace

void append_metric(std::string& out, double value, int decimals) {
  SCHEDLAB_ASSERT(std::isfinite(value), "a metric written to an output is finite");
  append_fixed(out, value, decimals);
}

void require_finite_numbers(const nlohmann::ordered_json& doc, const std::string& where) {
  if (doc.is_number_float()) {
    SCHEDLAB_ASSERT(std::isfinite(doc.get<double>()),
                    where + ": a metric written to an output is finite");
  } else if (doc.is_object()) {
    for (const auto& [key, value] : doc.items()) require_finite_numbers(value, where + "." + key);
  } else if (doc.is_array()) {
    for (std::size_t i = 0; i < doc.size(); ++i)
      require_finite_numbers(doc[i], where + "[" + std::to_string(i) + "]");
  }
}

double bounded_slowdown(const JobSpec& spec, const JobState& s) {
  const TimeMs turnaround_ms = s.finish_ms - spec.submit_ms;
  return std::max(1.0,
                  static_cast<double>(turnaround_ms) /
                      static_cast<double>(std::max(spec.duration_ms, kBoundedSlowdownThresholdMs)));
}

TimeMs queued_ms(const JobSpec& spec, const JobState& s) {
  return s.finish_ms - spec.submit_ms - s.run_ms;
}

double wasted_gpu_ms(const JobSpec& spec, const JobState& s) {
  if (s.status == JobStatus::kWalltimeReached)
    return static_cast<double>(s.run_ms) * static_cast<double>(spec.gpus);
  return static_cast<double>(s.lost_gpu_ms);
}

double percentile(const std::vector<double>& sorted, double p) {
  SCHEDLAB_ASSERT(!sorted.empty(), "percentile of a non-empty sample");
  const double rank = p / 100.0 * static_cast<double>(sorted.size() - 1);
  const auto lower = static_cast<std::size_t>(std::floor(rank));
  const std::size_t upper = std::min(lower + 1, sorted.size() - 1);
  const double fraction = rank - static_cast<double>(lower);
  return sorted[lower] + (sorted[upper] - sorted[lower]) * fraction;
}

void MetricsCollector::on_begin(const RunView& ctx) {
  ctx_ = &ctx;
  interval_ms_ = std::max<TimeMs>(1, ctx.options().timeseries_interval_ms);
  total_gpus_ = ctx.cluster().total_gpus();
  type_total_gpus_.clear();
  for (GpuTypeIndex t = 0; t < ctx.cluster().gpu_types().size(); ++t)
    type_total_gpus_.push_back(ctx.cluster().total_gpus_of(t));
  totals_ = Totals{};
  pending_open_ = false;
  pending_series_.clear();
  series_.clear();
  series_columns_ = 0;
  extended_ = cluster_models_active(ctx.options(), ctx.cluster());
  node_power_ = ctx.options().node_power;
  pue_ = effective_pue(ctx.options(), ctx.cluster());
  job_energy_extended_ = node_power_ || pue_ != 1.0;
  job_energy_j_.assign(ctx.trace().jobs.size(), 0.0);
  node_gpu_busy_w_.clear();
  for (NodeIndex node = 0; node < ctx.cluster().node_count(); ++node)
    node_gpu_busy_w_.push_back(
        ctx.cluster().gpu_types()[ctx.cluster().node(node).type].busy_power_w);
  carbon_cursor_ = 0;
  if (!keep_series_) return;
  // The submit span is a lower bound of the run window: refuse hopeless intervals up front.
  TimeMs last_submit_ms = ctx.now();
  for (const auto& job : ctx.trace().jobs) last_submit_ms = std::max(last_submit_ms, job.submit_ms);
  submit_span_rows_ = static_cast<std::uint64_t>((last_submit_ms - ctx.now()) / interval_ms_);
  if (submit_span_rows_ >= kMaxSeriesRows) throw_too_many_rows();
}

// Columns of timeseries.csv: its own and those other observers add (known once every observer
// has begun, so first asked at the first advance, before anything is written).
std::size_t MetricsCollector::series_columns() {
  if (series_columns_ > 0) return series_columns_;
  std::string header;
  for (const auto* columns : extra_columns_) columns->append_header(header);
  series_columns_ =
      (extended_ ? 9 : 7) + static_cast<std::size_t>(std::count(header.begin(), header.end(), ','));
  return series_columns_;
}

void MetricsCollector::throw_too_many_rows() const {
  if (series_columns_ == 0)
    throw ConfigError(
        fmt::format("--interval {} s: timeseries.csv would need more than {} rows for this "
                    "run; use a larger interval",
                    static_cast<double>(interval_ms_) / kMsPerSecond, kMaxSeriesRows));
  throw ConfigError(fmt::format(
      "--interval {} s: timeseries.csv would need more than {} rows or {} cells (rows x {} "
      "columns) for this run; use a larger interval",
      static_cast<double>(interval_ms_) / kMsPerSecond, kMaxSeriesRows, kMaxSeriesCells,
      series_columns_));
}

bool MetricsCollector::series_too_large(std::uint64_t rows) const {
  return rows >= kMaxSeriesRows || rows * series_columns_ > kMaxSeriesCells;
}

void MetricsCollector::on_advance(const RunView& ctx, TimeMs from_ms, TimeMs to_ms) {
  // Before the first segment: the submit span's rows times every column must fit.
  if (keep_series_ && series_columns_ == 0) {
    series_columns();
    if (series_too_large(submit_span_rows_)) throw_too_many_rows();
  }
  const Cluster& cluster = ctx.cluster();
  Segment s;
  s.from_ms = from_ms;
  s.to_ms = to_ms;
  s.busy_gpus = cluster.busy_gpus();
  s.queued_jobs = static_cast<std::int64_t>(ctx.queued_jobs());
  s.queued_gpus = ctx.queued_gpus();
  s.running_jobs = static_cast<std::int64_t>(ctx.running().size());
  if (extended_) {
    advance_with_models(cluster, s);
    return;
  }
  // Without cluster models no node is ever unavailable: busy = total - free.
  const auto& types = cluster.gpu_types();
  for (GpuTypeIndex t = 0; t < types.size(); ++t) {
    if (type_total_gpus_[t] == 0) continue;
    const auto busy = static_cast<double>(type_total_gpus_[t] - cluster.free_gpus_of(t));
    s.busy_power_w += busy * types[t].busy_power_w;
    s.idle_power_w += (static_cast<double>(type_total_gpus_[t]) - busy) * types[t].idle_power_w;
  }
  static const ModelSegment kNone;
  accumulate<false>(s, kNone);
}

// Segment fields under the cluster models: power by node state, and what is down or off.
void MetricsCollector::advance_with_models(const Cluster& cluster, Segment& s) {
  const PowerBreakdown power = cluster_power(cluster, node_power_);
  s.busy_power_w = power.gpu_busy_w;
  s.idle_power_w = power.gpu_idle_w;
  ModelSegment m;
  m.node_base_power_w = power.node_base_w;
  m.off_power_w = power.off_w;
  m.boot_power_w = power.boot_w;
  for (const auto& g : cluster.groups()) {
    m.down_gpus +=
        static_cast<std::int64_t>(g.in_state[static_cast<int>(NodeState::kDown)]) * g.gpus_per_node;
    m.off_gpus += static_cast<std::int64_t>(g.in_state[static_cast<int>(NodeState::kOff)] +
                                            g.in_state[static_cast<int>(NodeState::kBooting)]) *
                  g.gpus_per_node;
  }
  m.off_nodes = cluster.nodes_in_state(NodeState::kOff);
  m.down_nodes = cluster.nodes_in_state(NodeState::kDown);
  accumulate<true>(s, m);
}

void MetricsCollector::on_job(const RunView& ctx, JobIndex job, JobTransition what) {
  if (what == JobTransition::kPreempted || what == JobTransition::kFailed) {
    add_attempt_energy(ctx, job);
    return;
  }
  if (what != JobTransition::kCompleted && what != JobTransition::kWalltimeReached) return;
  add_attempt_energy(ctx, job);
  commit_pending();
}

// The attempt that just ended (its placement and start are still the job's last): its GPUs' busy
// power over the time it held them; with --node-power or a PUE, plus its share of its nodes'
// base power, times the PUE.
void MetricsCollector::add_attempt_energy(const RunView& ctx, JobIndex job) {
  const JobState& s = ctx.state(job);
  double power_w = 0.0;
  for (const auto& a : s.placement) power_w += a.gpu_count() * node_gpu_busy_w_[a.node];
  if (job_energy_extended_)
    power_w = (power_w + node_base_share_w(ctx.cluster(), s.placement)) * pue_;
  job_energy_j_[job] += power_w * static_cast<double>(ctx.now() - s.last_start_ms) / kMsPerSecond;
}

// A job's share of its nodes' base power: its fraction of each node's GPUs (--node-power).
double MetricsCollector::node_base_share_w(const Cluster& cluster,
                                           const Placement& placement) const {
  if (!node_power_) return 0.0;
  double watts = 0.0;
  for (const auto& a : placement) {
    const Node& n = cluster.node(a.node);
    watts += cluster.groups()[n.group].base_power_w * a.gpu_count() / n.gpus;
  }
  return watts;
}

void MetricsCollector::on_end(const RunView& /*ctx*/) {
  pending_open_ = false;  // what came after the last finish is dropped
  pending_series_.clear();
}

// Adds a segment to the pending integrals: a copy of the committed ones plus every segment
// since, in time order, so that committing them gives exactly the sums segment by segment.
template <bool kModels>
void MetricsCollector::accumulate(const Segment& s, const ModelSegment& m) {
  if (!pending_open_) {
    pending_open_ = true;
    pending_totals_ = totals_;
    pending_carbon_cursor_ = carbon_cursor_;
    pending_series_.clear();
    if (!series_.empty()) pending_series_.push_back(series_.back());  // may be extended
  }
  Totals& t = pending_totals_;
  const auto dt = static_cast<double>(s.to_ms - s.from_ms);
  t.span_ms += s.to_ms - s.from_ms;
  t.busy_gpu_ms += static_cast<double>(s.busy_gpus) * dt;
  t.capacity_gpu_ms += static_cast<double>(total_gpus_) * dt;
  if (s.queued_jobs > 0)
    t.idle_while_waiting_gpu_ms += static_cast<double>(total_gpus_ - s.busy_gpus) * dt;
  t.energy_busy_j += s.busy_power_w * dt / kMsPerSecond;
  t.energy_idle_j += s.idle_power_w * dt / kMsPerSecond;
  if constexpr (kModels) {
    t.energy_node_base_j += m.node_base_power_w * dt / kMsPerSecond;
    t.energy_off_j += m.off_power_w * dt / kMsPerSecond;
    t.energy_boot_j += m.boot_power_w * dt / kMsPerSecond;
    t.down_gpu_ms += static_cast<double>(m.down_gpus) * dt;
    t.off_gpu_ms += static_cast<double>(m.off_gpus) * dt;
    if (const auto& carbon = ctx_->options().carbon)
      t.emissions_g +=
          carbon->grams(facility_power_w(s, m), s.from_ms, s.to_ms, pending_carbon_cursor_);
  }
  if (keep_series_) add_to_series<kModels>(s, m);
}

// A job ended: everything up to now counts.
void MetricsCollector::commit_pending() {
  if (!pending_open_) return;
  pending_open_ = false;
  totals_ = pending_totals_;
  carbon_cursor_ = pending_carbon_cursor_;
  if (pending_series_.empty()) return;
  auto first = pending_series_.begin();
  if (!series_.empty() && first->start_ms == series_.back().start_ms) series_.back() = *first++;
  series_.insert(series_.end(), first, pending_series_.end());
  pending_series_.clear();
}

template <bool kModels>
void MetricsCollector::add_to_series(const Segment& s, const ModelSegment& m) {
  // Rows are aligned to multiples of the interval from time 0. pending_series_ starts with a
  // copy of the last committed row, so its last row is the run's last.
  TimeMs t = s.from_ms;
  while (t < s.to_ms) {
    const TimeMs row_start = t / interval_ms_ * interval_ms_;
    const TimeMs row_end = std::min(s.to_ms, row_start + interval_ms_);
    if (pending_series_.empty() || pending_series_.back().start_ms != row_start) {
      SCHEDLAB_ASSERT(pending_series_.empty() || pending_series_.back().start_ms < row_start,
                      "series rows ascend");
      const std::size_t rows = series_.size() + pending_series_.size() - (series_.empty() ? 0 : 1);
      if (series_too_large(rows)) throw_too_many_rows();
      pending_series_.push_back(SeriesRow{row_start, 0, 0, 0, 0, 0, 0, 0, 0});
    }
    SeriesRow& row = pending_series_.back();
    const auto dt = static_cast<double>(row_end - t);
    row.covered_ms += row_end - t;
    row.busy_gpu_ms += static_cast<double>(s.busy_gpus) * dt;
    row.queued_jobs_ms += static_cast<double>(s.queued_jobs) * dt;
    row.queued_gpus_ms += static_cast<double>(s.queued_gpus) * dt;
    row.running_jobs_ms += static_cast<double>(s.running_jobs) * dt;
    if constexpr (kModels) {
      row.energy_j += facility_power_w(s, m) * dt / kMsPerSecond;
      row.off_nodes_ms += static_cast<double>(m.off_nodes) * dt;
      row.down_nodes_ms += static_cast<double>(m.down_nodes) * dt;
    } else {
      row.energy_j += (s.busy_power_w + s.idle_power_w) * dt / kMsPerSecond;
    }
    t = row_end;
  }
}

nlohmann::ordered_json MetricsCollector::summary_json(const RunInfo& info) const {
  SCHEDLAB_ASSERT(ctx_ != nullptr, "summary rendered after a run");
  const Trace& trace = ctx_->trace();
  const Cluster& cluster = ctx_->cluster();
  std::uint64_t completed = 0;
  std::uint64_t rejected = 0;
  std::uint64_t restarts = 0;
  std::uint64_t preemptions = 0;
  std::uint64_t walltime_kills = 0;
  std::uint64_t failures = 0;
  double lost_gpu_ms = 0;
  double wasted_gpu_ms_total = 0;
  std::map<std::string, std::uint64_t> rejected_by_reason;
  std::vector<double> waits;
  std::vector<double> queued;
  std::vector<double> jcts;
  std::vector<double> slowdowns;
  waits.reserve(trace.jobs.size());
  queued.reserve(trace.jobs.size());
  jcts.reserve(trace.jobs.size());
  slowdowns.reserve(trace.jobs.size());
  for (JobIndex j = 0; j < trace.jobs.size(); ++j) {
    const JobState& s = ctx_->state(j);
    const JobSpec& spec = trace.jobs[j];
    restarts += s.restarts;
    preemptions += s.preemptions;
    failures += s.failures;
    lost_gpu_ms += static_cast<double>(s.lost_gpu_ms);
    if (s.status == JobStatus::kRejected) {
      ++rejected;
      ++rejected_by_reason[reject_reason_text(s.reject_reason)];
      continue;
    }
    SCHEDLAB_ASSERT(s.status == JobStatus::kCompleted || s.status == JobStatus::kWalltimeReached,
                    "every job ends completed, killed or rejected");
    if (s.status == JobStatus::kCompleted)
      ++completed;
    else
      ++walltime_kills;
    waits.push_back(seconds(s.first_start_ms - spec.submit_ms));
    queued.push_back(seconds(queued_ms(spec, s)));
    wasted_gpu_ms_total += wasted_gpu_ms(spec, s);
    jcts.push_back(seconds(s.finish_ms - spec.submit_ms));
    slowdowns.push_back(bounded_slowdown(spec, s));
  }
  nlohmann::ordered_json out;
  out["policy"] = info.policy;
  out["policy_params"] = nlohmann::ordered_json::object();
  for (const auto& [key, value] : info.policy_params) out["policy_params"][key] = value;
  // The trace: its path as given, the reader that produced it and every job left out, by reason.
  nlohmann::ordered_json skipped = nlohmann::ordered_json::object();
  for (const auto& [reason, count] : trace.skipped) skipped[reason] = count;
  out["trace"] = {{"path", info.trace},
                  {"format", trace.format},
                  {"fingerprint", info.trace_fingerprint},
                  {"skipped", skipped}};
  // GPUs per type, in the cluster's type order.
  nlohmann::ordered_json gpu_types = nlohmann::ordered_json::object();
  for (GpuTypeIndex t = 0; t < cluster.gpu_types().size(); ++t)
    if (cluster.total_gpus_of(t) > 0)
      gpu_types[cluster.gpu_types()[t].name] = cluster.total_gpus_of(t);
  out["cluster"] = {
      {"nodes", cluster.node_count()}, {"gpus", cluster.total_gpus()}, {"gpu_types", gpu_types}};
  out["jobs"] = {
      {"submitted", trace.jobs.size()}, {"completed", completed}, {"rejected", rejected}};
  if (!rejected_by_reason.empty()) out["jobs"]["rejected_reasons"] = rejected_by_reason;
  out["makespan_s"] = round_to(seconds(totals_.span_ms), 3);
  out["wait_s"] = distribution(std::move(waits), true, 3);
  out["queued_s"] = distribution(std::move(queued), true, 3);
  out["jct_s"] = distribution(std::move(jcts), true, 3);
  out["bounded_slowdown"] = distribution(std::move(slowdowns), false, 6);
  out["utilization"] = totals_.capacity_gpu_ms > 0
                           ? round_to(totals_.busy_gpu_ms / totals_.capacity_gpu_ms, 6)
                           : 0.0;
  out["gpu_hours"] = {
      {"capacity", round_to(totals_.capacity_gpu_ms / kMsPerHour, 6)},
      {"busy", round_to(totals_.busy_gpu_ms / kMsPerHour, 6)},
      {"idle", round_to((totals_.capacity_gpu_ms - totals_.busy_gpu_ms) / kMsPerHour, 6)},
      {"idle_while_jobs_wait", round_to(totals_.idle_while_waiting_gpu_ms / kMsPerHour, 6)},
      {"lost", round_to(lost_gpu_ms / kMsPerHour, 6)},
      {"wasted", round_to(wasted_gpu_ms_total / kMsPerHour, 6)},
  };
  out["energy_kwh"] = {
      {"total", round_to((totals_.energy_busy_j + totals_.energy_idle_j) / kJoulesPerKwh, 6)},
      {"gpu_busy", round_to(totals_.energy_busy_j / kJoulesPerKwh, 6)},
      {"gpu_idle", round_to(totals_.energy_idle_j / kJoulesPerKwh, 6)},
  };
  if (extended_) add_energy_keys(out);
  out["restarts"] = {
      {"total", restarts}, {"preemptions", preemptions}, {"walltime_kills", walltime_kills}};
  if (extended_) out["restarts"]["failures"] = failures;
  out["engine"] = {{"events", info.engine.events},
                   {"instants", info.engine.instants},
                   {"wall_s", round_to(info.wall_s, 3)}};
  out["options"] = options_json();
  out["schedlab_version"] = SCHEDLAB_VERSION_STRING;
  require_finite_numbers(out, "summary.json");
  return out;
}

double MetricsCollector::facility_power_w(const Segment& s, const ModelSegment& m) const {
  return (s.busy_power_w + s.idle_power_w + m.node_base_power_w + m.off_power_w + m.boot_power_w) *
         pue_;
}

void MetricsCollector::add_energy_keys(nlohmann::ordered_json& out) const {
  auto& hours = out["gpu_hours"];
  hours["down"] = round_to(totals_.down_gpu_ms / kMsPerHour, 6);
  hours["off"] = round_to(totals_.off_gpu_ms / kMsPerHour, 6);
  const double it_j = totals_.energy_busy_j + totals_.energy_idle_j + totals_.energy_node_base_j +
                      totals_.energy_off_j + totals_.energy_boot_j;
  auto& energy = out["energy_kwh"];
  energy["total"] = round_to(it_j * pue_ / kJoulesPerKwh, 6);
  energy["node_base"] = round_to(totals_.energy_node_base_j / kJoulesPerKwh, 6);
  energy["off"] = round_to(totals_.energy_off_j / kJoulesPerKwh, 6);
  energy["boot"] = round_to(totals_.energy_boot_j / kJoulesPerKwh, 6);
  energy["facility"] = round_to(it_j * (pue_ - 1.0) / kJoulesPerKwh, 6);
  if (ctx_->options().carbon) out["emissions_kg"] = round_to(totals_.emissions_g / 1000.0, 6);
}

nlohmann::ordered_json MetricsCollector::options_json() const {
  const RunOptions& options = ctx_->options();
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  for (const auto echo :
       {SummaryEcho::kAlways, SummaryEcho::kClusterModels, SummaryEcho::kWhenSet}) {
    if (echo == SummaryEcho::kClusterModels && !extended_) continue;
    for (const auto& option : run_option_table()) {
      if (option.summary != echo) continue;
      if (echo == SummaryEcho::kWhenSet && !option.shown_in_spec(options)) continue;
      nlohmann::ordered_json value = option.value(options);
      if (option.kind == RunOptionKind::kSeconds) value = round_to(value.get<double>(), 3);
      // The PUE in effect: the option's, else the cluster spec's.
      if (option.key == "pue") value = round_to(pue_, 6);
      out[std::string(option.key)] = std::move(value);
    }
  }
  return out;
}

std::vector<ClassedJob> MetricsCollector::classed_jobs() const {
  SCHEDLAB_ASSERT(ctx_ != nullptr, "jobs classed after a run");
  const Trace& trace = ctx_->trace();
  std::vector<ClassedJob> out;
  out.reserve(trace.jobs.size());
  for (JobIndex j = 0; j < trace.jobs.size(); ++j) {
    const JobSpec& spec = trace.jobs[j];
    const JobState& s = ctx_->state(j);
    if (s.status == JobStatus::kRejected) continue;
    out.push_back({spec.gpus, spec.duration_ms, trace.strings.str(spec.tenant),
                   trace.strings.str(spec.user), seconds(s.first_start_ms - spec.submit_ms),
                   seconds(queued_ms(spec, s)), seconds(s.finish_ms - spec.submit_ms),
                   bounded_slowdown(spec, s)});
  }
  return out;
}

std::string MetricsCollector::jobs_csv() const {
  SCHEDLAB_ASSERT(ctx_ != nullptr, "jobs.csv rendered after a run");
  const Trace& trace = ctx_->trace();
  const Cluster& cluster = ctx_->cluster();
  std::string out;
  // An upper bound of the rendered size, so the buffer never regrows (a regrowth would copy
  // the whole text into fresh pages). Pages of the bound that are never written are never
  // touched, so over-estimating costs address space only.
  std::size_t bound = 512;
  std::size_t type_names = 0;  // every GPU type name, quoted, and a '+' each
  for (const auto& type : cluster.gpu_types()) type_names += 2 * type.name.size() + 3;
  for (JobIndex j = 0; j < trace.jobs.size(); ++j) {
    const JobSpec& spec = trace.jobs[j];
    // At most one GPU id per GPU the job's last attempt held (a rejected job held none): the
    // bound follows what the run allocated, never the trace's request.
    const Placement& placement = ctx_->state(j).placement;
    bound += 424 + type_names +
             2 * (spec.id.size() + trace.strings.str(spec.user).size() +
                  trace.strings.str(spec.status).size() + trace.strings.str(spec.tenant).size()) +
             12 * static_cast<std::size_t>(placement_gpu_count(placement));
  }
  out.reserve(bound);
  out += job_csv_header(extended_);
  for (JobIndex j = 0; j < trace.jobs.size(); ++j) {
    append_job_row(out, {trace, cluster, trace.jobs[j], ctx_->state(j), job_energy_j_[j]},
                   extended_);
  }
  return out;
}

std::string MetricsCollector::timeseries_csv() const {
  if (!keep_series_) return "";
  std::string out =
      extended_ ? "time_s,busy_gpus,idle_gpus,queued_jobs,queued_gpus,running_jobs,power_w,"
                  "nodes_off,nodes_down\n"
                : "time_s,busy_gpus,idle_gpus,queued_jobs,queued_gpus,running_jobs,power_w\n";
  if (!extra_columns_.empty()) {
    out.pop_back();
    for (const auto* columns : extra_columns_) columns->append_header(out);
    out.push_back('\n');
  }
  out.reserve(series_.size() * 64 + out.size());
  for (const auto& row : series_) {
    const auto covered = static_cast<double>(row.covered_ms);
    const double busy = row.busy_gpu_ms / covered;
    append_seconds(out, row.start_ms);
    for (double value : {busy, static_cast<double>(total_gpus_) - busy,
                         row.queued_jobs_ms / covered, row.queued_gpus_ms / covered,
                         row.running_jobs_ms / covered, row.energy_j * kMsPerSecond / covered}) {
      out.push_back(',');
      append_metric(out, value, 3);
    }
    if (extended_) {
      for (double value : {row.off_nodes_ms / covered, row.down_nodes_ms / covered}) {
        out.push_back(',');
        append_metric(out, value, 3);
      }
    }
    for (const auto* columns : extra_columns_)
      columns->append_row(out, row.start_ms, row.covered_ms);
    out.push_back('\n');
  }
  return out;
}

}  // namespace schedlab
