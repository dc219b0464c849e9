#include "schedlab/sharing_metrics.hpp"

#include <algorithm>

#include "schedlab/error.hpp"
#include "schedlab/metrics.hpp"
#include "schedlab/output.hpp"
#include "schedlab/run_options.hpp"

namespace schedlab {

void SharingMetrics::Integrals::add(const Integrals& other) {
  allocated_milli_ms += other.allocated_milli_ms;
  idle_gpu_ms += other.idle_gpu_ms;
  partly_used_gpu_ms += other.partly_used_gpu_ms;
  fragmented_milli_ms += other.fragmented_milli_ms;
}

void SharingMetrics::on_begin(const RunView& ctx) {
  SCHEDLAB_ASSERT(ctx.sharing() != nullptr, "sharing metrics observe runs that share GPUs");
  placement_ = ctx.options().gpu_sharing;
  total_gpus_ = ctx.cluster().total_gpus();
  first_ms_ = ctx.now();
  interval_ms_ = std::max<TimeMs>(1, ctx.options().timeseries_interval_ms);
}

void SharingMetrics::add(std::size_t row, const Integrals& part) {
  if (rows_.size() <= row) rows_.resize(row + 1);
  rows_[row].add(part);
}

void SharingMetrics::on_advance(const RunView& ctx, TimeMs from_ms, TimeMs to_ms) {
  const SharingSnapshot& now = *ctx.sharing();
  const double idle = static_cast<double>(ctx.cluster().free_gpus());
  span_ms_ += to_ms - from_ms;
  // Split [from, to) at row boundaries, so each row gets exactly its part.
  for (TimeMs t = from_ms; t < to_ms;) {
    const auto row = static_cast<std::size_t>((t - first_ms_) / interval_ms_);
    const TimeMs row_end = first_ms_ + static_cast<TimeMs>(row + 1) * interval_ms_;
    const TimeMs end = std::min(to_ms, row_end);
    const auto dt = static_cast<double>(end - t);
    Integrals part;
    part.allocated_milli_ms = static_cast<double>(now.allocated_gpu_milli) * dt;
    part.idle_gpu_ms = idle * dt;
    part.partly_used_gpu_ms = static_cast<double>(now.partly_used_gpus) * dt;
    part.fragmented_milli_ms = now.fragmentation_milli * dt;
    totals_.add(part);
    add(row, part);
    t = end;
  }
}

void SharingMetrics::on_end(const RunView& ctx) {
  mig_reconfigurations_ = ctx.sharing()->mig_reconfigurations;
}

nlohmann::ordered_json SharingMetrics::summary_json() const {
  const double span = span_ms_ > 0 ? static_cast<double>(span_ms_) : 1.0;
  const double capacity_milli = static_cast<double>(total_gpus_) * 1000.0;
  nlohmann::ordered_json out;
  out["placement"] = placement_;
  out["mean_allocated_gpu_share"] = round_to(totals_.allocated_milli_ms / span / capacity_milli, 6);
  out["mean_idle_gpus"] = round_to(totals_.idle_gpu_ms / span, 3);
  out["mean_partly_used_gpus"] = round_to(totals_.partly_used_gpu_ms / span, 3);
  out["mean_fragmented_gpus"] = round_to(totals_.fragmented_milli_ms / span / 1000.0, 3);
  out["mig_reconfigurations"] = mig_reconfigurations_;
  require_finite_numbers(out, "summary.json sharing");
  return out;
}

void SharingMetrics::append_header(std::string& out) const {
  out += ",allocated_gpu_share,idle_gpus_fully,partly_used_gpus,fragmented_gpus";
}

void SharingMetrics::append_row(std::string& out, TimeMs start_ms, TimeMs covered_ms) const {
  const auto row = static_cast<std::size_t>((start_ms - first_ms_) / interval_ms_);
  const Integrals none;
  const Integrals& r = row < rows_.size() ? rows_[row] : none;
  const double covered = covered_ms > 0 ? static_cast<double>(covered_ms) : 1.0;
  const double capacity_milli = static_cast<double>(total_gpus_) * 1000.0;
  const double values[] = {r.allocated_milli_ms / covered / capacity_milli, r.idle_gpu_ms / covered,
                           r.partly_used_gpu_ms / covered,
                           r.fragmented_milli_ms / covered / 1000.0};
  for (std::size_t i = 0; i < std::size(values); ++i) {
    out.push_back(',');
    append_metric(out, values[i], i == 0 ? 6 : 3);
  }
}

}  // namespace schedlab
