// GPU sharing metrics (docs/gpu-sharing.md), an observer of runs with --gpu-sharing: the
// allocated GPU share (milli held / capacity), GPUs fully idle, GPUs partly used and the
// fragmentation measure of Weng et al. (in GPUs), integrated exactly over time like every other
// metric, as summary means and as timeseries.csv columns.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "schedlab/metrics.hpp"
#include "schedlab/observer.hpp"

namespace schedlab {

class SharingMetrics : public Observer, public SeriesColumns {
 public:
  void on_begin(const RunView& ctx) override;
  void on_advance(const RunView& ctx, TimeMs from_ms, TimeMs to_ms) override;
  void on_end(const RunView& ctx) override;

  // summary.json's "sharing": the placement and the time means over the run.
  nlohmann::ordered_json summary_json() const;
  void append_header(std::string& out) const override;
  void append_row(std::string& out, TimeMs start_ms, TimeMs covered_ms) const override;

 private:
  // Integrals over time: milli-ms, GPU-ms.
  struct Integrals {
    double allocated_milli_ms = 0;
    double idle_gpu_ms = 0;
    double partly_used_gpu_ms = 0;
    double fragmented_milli_ms = 0;
    void add(const Integrals& other);
  };
  void add(std::size_t row, const Integrals& part);

  std::string placement_;
  std::int64_t mig_reconfigurations_ = 0;  // at the end of the run
  std::int64_t total_gpus_ = 0;
  TimeMs first_ms_ = 0;
  TimeMs interval_ms_ = 1;
  TimeMs span_ms_ = 0;
  Integrals totals_;
  std::vector<Integrals> rows_;  // [k] covers [first + k interval, first + (k + 1) interval)
};

}  // namespace schedlab
