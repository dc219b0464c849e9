#include "schedlab/run_progress.hpp"

#include <fmt/format.h>

#include "schedlab/metric_catalog.hpp"

namespace schedlab {

ProgressObserver::ProgressObserver(RunProgressCallback report, std::chrono::milliseconds period)
    : report_(std::move(report)), period_(period) {}

void ProgressObserver::on_begin(const RunView& /*ctx*/) {
  started_ = std::chrono::steady_clock::now();
  last_report_ = started_;
  advances_ = 0;
  jobs_finished_ = 0;
}

void ProgressObserver::on_advance(const RunView& ctx, TimeMs /*from_ms*/, TimeMs /*to_ms*/) {
  if (++advances_ % 64 != 0) return;
  const auto now = std::chrono::steady_clock::now();
  if (now - last_report_ < period_) return;
  last_report_ = now;
  report_(sample(ctx, now));
}

void ProgressObserver::on_job(const RunView& /*ctx*/, JobIndex /*job*/, JobTransition what) {
  if (what == JobTransition::kCompleted || what == JobTransition::kRejected ||
      what == JobTransition::kWalltimeReached)
    ++jobs_finished_;
}

void ProgressObserver::on_end(const RunView& ctx) {
  RunProgress last = sample(ctx, std::chrono::steady_clock::now());
  last.done = true;
  report_(last);
}

RunProgress ProgressObserver::sample(const RunView& ctx,
                                     std::chrono::steady_clock::time_point now) const {
  RunProgress p;
  p.now_ms = ctx.now();
  p.jobs_finished = jobs_finished_;
  p.jobs_total = ctx.trace().jobs.size();
  p.wall_s = std::chrono::duration<double>(now - started_).count();
  return p;
}

std::string format_run_progress(const RunProgress& p) {
  const double fraction =
      p.jobs_total == 0 ? 1.0
                        : static_cast<double>(p.jobs_finished) / static_cast<double>(p.jobs_total);
  std::string line = fmt::format("simulated {}, {}/{} jobs ({:.1f}%)",
                                 human_duration_text(static_cast<double>(p.now_ms) / 1000.0),
                                 p.jobs_finished, p.jobs_total, fraction * 100.0);
  if (p.jobs_finished == 0 || p.wall_s <= 0.0) return line;
  const double rate = static_cast<double>(p.jobs_finished) / p.wall_s;
  line += fmt::format(", {:.0f} jobs/s", rate);
  if (!p.done)
    line += fmt::format(
        ", ETA {}",
        human_duration_text(static_cast<double>(p.jobs_total - p.jobs_finished) / rate));
  return line;
}

}  // namespace schedlab
