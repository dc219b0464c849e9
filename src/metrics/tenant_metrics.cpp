#include "schedlab/tenant_metrics.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "schedlab/error.hpp"
#include "schedlab/output.hpp"
#include "schedlab/run_options.hpp"
#include "schedlab/tenant_usage.hpp"

namespace schedlab {

namespace {

double seconds(TimeMs ms) {
  return static_cast<double>(ms) / kMsPerSecond;
}

double mean(const std::vector<double>& values) {
  if (values.empty()) return 0.0;
  double sum = 0;
  for (const double v : values) sum += v;
  return sum / static_cast<double>(values.size());
}

}  // namespace

void TenantMetrics::on_begin(const RunView& ctx) {
  ctx_ = &ctx;
  interval_ms_ = std::max<TimeMs>(1, ctx.options().timeseries_interval_ms);
  const TenantTable& table = ctx.tenants();
  accounts_.assign(table.size(), Account{});
  for (auto& account : accounts_) account.changed_ms = ctx.now();
  entitled_gpus_.clear();
  for (const auto& tenant : table.tenants())
    entitled_gpus_.push_back(tenant.entitled_share *
                             static_cast<double>(ctx.cluster().total_gpus()));
  series_cursor_.assign(table.size(), 0);
  queued_jobs_ = 0;
  std::vector<double> weights;
  for (const auto& tenant : table.tenants()) weights.push_back(tenant.entitled_share);
  demand_share_.emplace(ctx.cluster().total_gpus(), std::move(weights));
  demand_totals_.clear();
}

void TenantMetrics::integrate(TenantIndex tenant, TimeMs now_ms) {
  Account& a = accounts_[tenant];
  const TimeMs from_ms = a.changed_ms;
  a.changed_ms = now_ms;
  if (now_ms <= from_ms) return;
  if (a.queued_jobs > 0) {
    const TimeMs span_ms = now_ms - from_ms;
    const double entitled = entitled_gpus_[tenant];
    const auto held = static_cast<double>(a.busy_gpus);
    a.waiting_ms += span_ms;
    if (held + static_cast<double>(a.queued_sizes.begin()->first) <= entitled)
      a.waiting_under_ms += span_ms;
    const double owed = std::min(held + static_cast<double>(a.queued_gpus), entitled) - held;
    if (owed > 0) a.deficit_gpu_ms += owed * static_cast<double>(span_ms);
  }
  if (!keep_series_ || a.busy_gpus == 0) return;
  // Rows are aligned to multiples of the interval from time 0, as in MetricsCollector.
  for (TimeMs t = from_ms; t < now_ms;) {
    const auto row = static_cast<std::uint64_t>(t / interval_ms_);
    const TimeMs row_end = std::min(now_ms, static_cast<TimeMs>(row + 1) * interval_ms_);
    const double gpu_ms = static_cast<double>(a.busy_gpus) * static_cast<double>(row_end - t);
    if (a.series.empty() || a.series.back().first != row)
      a.series.emplace_back(row, gpu_ms);
    else
      a.series.back().second += gpu_ms;
    t = row_end;
  }
}

void TenantMetrics::on_job(const RunView& ctx, JobIndex job, JobTransition what) {
  const TenantIndex tenant = ctx.tenants().of_job(job);
  integrate(tenant, ctx.now());
  Account& a = accounts_[tenant];
  const std::int64_t gpus = ctx.trace().jobs[job].gpus;
  switch (what) {
    case JobTransition::kSubmitted:
    case JobTransition::kPreempted:
    case JobTransition::kFailed:
      ++a.queued_jobs;
      ++queued_jobs_;
      a.queued_gpus += gpus;
      ++a.queued_sizes[gpus];
      break;
    case JobTransition::kStarted: {
      --a.queued_jobs;
      --queued_jobs_;
      a.queued_gpus -= gpus;
      const auto it = a.queued_sizes.find(gpus);
      SCHEDLAB_ASSERT(it != a.queued_sizes.end(), "a starting job was queued");
      if (--it->second == 0) a.queued_sizes.erase(it);
      break;
    }
    case JobTransition::kRejected:
    case JobTransition::kCompleted:
    case JobTransition::kWalltimeReached: break;
  }
  SCHEDLAB_ASSERT(a.queued_jobs >= 0, "a tenant never has fewer than 0 queued jobs");
  a.busy_gpus = ctx.tenant_usage().busy_gpus(tenant);
  demand_share_->record(ctx.now(), tenant, a.busy_gpus + a.queued_gpus, a.busy_gpus, queued_jobs_);
}

void TenantMetrics::on_end(const RunView& ctx) {
  for (TenantIndex tenant = 0; tenant < accounts_.size(); ++tenant) {
    integrate(tenant, ctx.now());
    SCHEDLAB_ASSERT(accounts_[tenant].queued_jobs == 0 && accounts_[tenant].busy_gpus == 0,
                    "every tenant's jobs have ended when the run ends");
  }
  demand_totals_ = demand_share_->totals(ctx.now());
  figures_ = compute_figures();
}

const std::vector<TenantMetrics::Figures>& TenantMetrics::figures() const {
  SCHEDLAB_ASSERT(ctx_ != nullptr && figures_.size() == ctx_->tenants().size(),
                  "tenant metrics rendered after a run");
  return figures_;
}

std::vector<TenantMetrics::Figures> TenantMetrics::compute_figures() const {
  SCHEDLAB_ASSERT(ctx_ != nullptr, "tenant metrics rendered after a run");
  const TenantTable& table = ctx_->tenants();
  const Trace& trace = ctx_->trace();
  std::vector<Figures> out(table.size());
  std::vector<std::vector<double>> waits(table.size());
  std::vector<std::vector<double>> jcts(table.size());
  std::vector<std::vector<double>> slowdowns(table.size());
  for (JobIndex j = 0; j < trace.jobs.size(); ++j) {
    const TenantIndex tenant = table.of_job(j);
    const JobState& s = ctx_->state(j);
    const JobSpec& spec = trace.jobs[j];
    Figures& f = out[tenant];
    ++f.submitted;
    if (s.status == JobStatus::kRejected) {
      ++f.rejected;
      continue;
    }
    if (s.status == JobStatus::kCompleted) ++f.completed;
    waits[tenant].push_back(seconds(s.first_start_ms - spec.submit_ms));
    jcts[tenant].push_back(seconds(s.finish_ms - spec.submit_ms));
    slowdowns[tenant].push_back(bounded_slowdown(spec, s));
  }
  double used_total_gpu_ms = 0;
  for (TenantIndex t = 0; t < table.size(); ++t)
    used_total_gpu_ms +=
        static_cast<double>(ctx_->tenant_usage().used_gpu_ms(t, accounts_[t].changed_ms));
  for (TenantIndex t = 0; t < table.size(); ++t) {
    Figures& f = out[t];
    std::sort(waits[t].begin(), waits[t].end());
    f.finished_jobs = !waits[t].empty();
    if (f.finished_jobs) {
      f.wait_mean_s = mean(waits[t]);
      f.wait_p95_s = percentile(waits[t], 95);
      f.wait_max_s = waits[t].back();
      f.jct_mean_s = mean(jcts[t]);
      f.bounded_slowdown_mean = mean(slowdowns[t]);
    }
    const auto used_gpu_ms =
        static_cast<double>(ctx_->tenant_usage().used_gpu_ms(t, accounts_[t].changed_ms));
    f.gpu_hours = used_gpu_ms / kMsPerHour;
    f.received_share = used_total_gpu_ms > 0 ? used_gpu_ms / used_total_gpu_ms : 0.0;
    const Account& a = accounts_[t];
    f.waited_under_entitlement_share = a.waiting_ms > 0 ? static_cast<double>(a.waiting_under_ms) /
                                                              static_cast<double>(a.waiting_ms)
                                                        : 0.0;
    f.waited_under_entitlement_s = seconds(a.waiting_under_ms);
    f.entitlement_deficit_gpu_h = a.deficit_gpu_ms / kMsPerHour;
    if (t < demand_totals_.size()) {
      const DemandShare::Totals& d = demand_totals_[t];
      f.demand_fair_gpu_h = d.fair_gpu_ms / kMsPerHour;
      f.demand_received_gpu_h = d.received_gpu_ms / kMsPerHour;
      if (d.fair_gpu_ms > 0) f.demand_share = d.received_gpu_ms / d.fair_gpu_ms;
    }
  }
  return out;
}

nlohmann::ordered_json TenantMetrics::tenants_json() const {
  const TenantTable& table = ctx_->tenants();
  const std::vector<Figures>& all = figures();
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  // Tenant names are unique, so each entry is appended (ordered_json's operator[] would search
  // every earlier key: quadratic in tenants).
  auto& members = out.get_ref<nlohmann::ordered_json::object_t&>();
  members.reserve(table.size());
  for (TenantIndex t = 0; t < table.size(); ++t) {
    const Tenant& tenant = table.tenant(t);
    const Figures& f = all[t];
    members.Container::emplace_back(tenant.name, nlohmann::ordered_json::object());
    nlohmann::ordered_json& entry = members.back().second;
    entry["quota_gpus"] = tenant.quota_gpus;
    entry["weight"] = round_to(tenant.weight, 6);
    entry["jobs"] = {
        {"submitted", f.submitted}, {"completed", f.completed}, {"rejected", f.rejected}};
    entry["wait_s"] = {{"mean", round_to(f.wait_mean_s, 3)},
                       {"p95", round_to(f.wait_p95_s, 3)},
                       {"max", round_to(f.wait_max_s, 3)}};
    entry["jct_s"] = {{"mean", round_to(f.jct_mean_s, 3)}};
    entry["bounded_slowdown"] = {{"mean", round_to(f.bounded_slowdown_mean, 6)}};
    entry["gpu_hours"] = round_to(f.gpu_hours, 6);
    entry["entitled_share"] = round_to(tenant.entitled_share, 6);
    entry["received_share"] = round_to(f.received_share, 6);
    entry["waited_under_entitlement_share"] = round_to(f.waited_under_entitlement_share, 6);
    entry["waited_under_entitlement_s"] = round_to(f.waited_under_entitlement_s, 3);
    entry["entitlement_deficit_gpu_h"] = round_to(f.entitlement_deficit_gpu_h, 6);
    entry["demand_fair_gpu_h"] = round_to(f.demand_fair_gpu_h, 6);
    entry["demand_received_gpu_h"] = round_to(f.demand_received_gpu_h, 6);
    if (f.demand_share)
      entry["demand_share"] = round_to(*f.demand_share, 6);
    else
      entry["demand_share"] = nullptr;
    if (rho_set_) {
      if (rho_[t])
        entry["finish_time_fairness"] = round_to(*rho_[t], 6);
      else
        entry["finish_time_fairness"] = nullptr;
    }
  }
  return out;
}

nlohmann::ordered_json TenantMetrics::fairness_json() const {
  const TenantTable& table = ctx_->tenants();
  const std::vector<Figures>& all = figures();
  // Jain's index over the tenants that had jobs and an entitlement: x = received / entitled.
  double sum = 0;
  double sum_squares = 0;
  std::size_t counted = 0;
  double worst_slowdown = 0;
  std::string worst_tenant;
  double most_wait = 0;
  double least_wait = std::numeric_limits<double>::infinity();
  for (TenantIndex t = 0; t < table.size(); ++t) {
    const Figures& f = all[t];
    if (f.submitted > f.rejected && table.tenant(t).entitled_share > 0) {
      const double x = f.received_share / table.tenant(t).entitled_share;
      sum += x;
      sum_squares += x * x;
      ++counted;
    }
    if (!f.finished_jobs) continue;
    if (worst_tenant.empty() || f.bounded_slowdown_mean > worst_slowdown) {
      worst_slowdown = f.bounded_slowdown_mean;
      worst_tenant = table.tenant(t).name;
    }
    most_wait = std::max(most_wait, f.wait_mean_s);
    least_wait = std::min(least_wait, f.wait_mean_s);
  }
  // Jain's index and minimum of the demand-aware shares, over the tenants owed GPUs while jobs
  // waited (those of a positive weight that asked for GPUs then).
  double demand_sum = 0;
  double demand_sum_squares = 0;
  std::size_t demand_counted = 0;
  std::optional<double> demand_min;
  for (const Figures& f : all) {
    if (!f.demand_share) continue;
    demand_sum += *f.demand_share;
    demand_sum_squares += *f.demand_share * *f.demand_share;
    ++demand_counted;
    demand_min = std::min(demand_min.value_or(*f.demand_share), *f.demand_share);
  }
  nlohmann::ordered_json out;
  out["tenants"] = table.size();
  if (demand_counted == 0) {  // no job ever waited: every tenant had what it asked for
    out["demand_share_jain"] = 1.0;
    out["demand_share_min"] = nullptr;
  } else {
    out["demand_share_jain"] =
        demand_sum_squares > 0
            ? round_to(demand_sum * demand_sum /
                           (static_cast<double>(demand_counted) * demand_sum_squares),
                       6)
            : 1.0;
    out["demand_share_min"] = round_to(*demand_min, 6);
  }
  out["whole_run_share_jain"] =
      sum_squares > 0 ? round_to(sum * sum / (static_cast<double>(counted) * sum_squares), 6) : 1.0;
  out["worst_mean_bounded_slowdown"] = round_to(worst_slowdown, 6);
  out["worst_tenant"] = worst_tenant;
  double deficit_gpu_h = 0;
  for (const Figures& f : all) deficit_gpu_h += f.entitlement_deficit_gpu_h;
  out["entitlement_deficit_gpu_h"] = round_to(deficit_gpu_h, 6);
  // Mean waits of 0 s make the ratio unbounded: null then (1 when every mean wait is 0).
  if (worst_tenant.empty() || most_wait == 0)
    out["wait_max_min_ratio"] = 1.0;
  else if (least_wait == 0)
    out["wait_max_min_ratio"] = nullptr;
  else
    out["wait_max_min_ratio"] = round_to(most_wait / least_wait, 6);
  if (rho_set_) {
    std::optional<double> worst;
    for (const auto& rho : rho_)
      if (rho && (!worst || *rho > *worst)) worst = rho;
    if (worst)
      out["max_finish_time_fairness"] = round_to(*worst, 6);
    else
      out["max_finish_time_fairness"] = nullptr;
  }
  return out;
}

std::string TenantMetrics::tenants_csv() const {
  const TenantTable& table = ctx_->tenants();
  const std::vector<Figures>& all = figures();
  std::string out =
      "tenant,cohort,quota_gpus,weight,entitled_share,jobs,completed,rejected,wait_mean_s,"
      "wait_p95_s,wait_max_s,jct_mean_s,bounded_slowdown_mean,gpu_hours,received_share,"
      "waited_under_entitlement_share,waited_under_entitlement_s,entitlement_deficit_gpu_h,"
      "demand_fair_gpu_h,demand_received_gpu_h,demand_share,finish_time_fairness\n";
  for (TenantIndex t = 0; t < table.size(); ++t) {
    const Tenant& tenant = table.tenant(t);
    const Figures& f = all[t];
    append_csv_field(out, tenant.name);
    out.push_back(',');
    append_csv_field(out, table.cohorts()[tenant.cohort]);
    out.push_back(',');
    append_int(out, tenant.quota_gpus);
    for (const double v : {tenant.weight, tenant.entitled_share}) {
      out.push_back(',');
      append_fixed(out, v, 6);
    }
    for (const std::uint64_t v : {f.submitted, f.completed, f.rejected}) {
      out.push_back(',');
      append_int(out, static_cast<std::int64_t>(v));
    }
    for (const double v : {f.wait_mean_s, f.wait_p95_s, f.wait_max_s, f.jct_mean_s}) {
      out.push_back(',');
      append_fixed(out, v, 3);
    }
    for (const double v : {f.bounded_slowdown_mean, f.gpu_hours, f.received_share,
                           f.waited_under_entitlement_share}) {
      out.push_back(',');
      append_fixed(out, v, 6);
    }
    out.push_back(',');
    append_fixed(out, f.waited_under_entitlement_s, 3);
    out.push_back(',');
    append_fixed(out, f.entitlement_deficit_gpu_h, 6);
    for (const double v : {f.demand_fair_gpu_h, f.demand_received_gpu_h}) {
      out.push_back(',');
      append_fixed(out, v, 6);
    }
    out.push_back(',');  // empty when nothing was owed while jobs waited
    if (f.demand_share) append_fixed(out, *f.demand_share, 6);
    out.push_back(',');  // empty without an isolated baseline, or when undefined
    if (rho_set_ && rho_[t]) append_fixed(out, *rho_[t], 6);
    out.push_back('\n');
  }
  return out;
}

void TenantMetrics::append_header(std::string& out) const {
  for (const auto& tenant : ctx_->tenants().tenants()) {
    out.push_back(',');
    append_csv_field(out, "gpus." + tenant.name);
  }
}

void TenantMetrics::append_row(std::string& out, TimeMs start_ms, TimeMs covered_ms) const {
  const auto row = static_cast<std::uint64_t>(start_ms / interval_ms_);
  for (TenantIndex t = 0; t < accounts_.size(); ++t) {
    const auto& series = accounts_[t].series;
    std::size_t& cursor = series_cursor_[t];
    while (cursor < series.size() && series[cursor].first < row) ++cursor;
    double gpu_ms = 0;
    if (cursor < series.size() && series[cursor].first == row) gpu_ms = series[cursor].second;
    out.push_back(',');
    append_fixed(out, covered_ms > 0 ? gpu_ms / static_cast<double>(covered_ms) : 0.0, 3);
  }
}

}  // namespace schedlab
