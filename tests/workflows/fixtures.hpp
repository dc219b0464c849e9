// Shared inputs of the workflow tests (sweep, report, check): a small trace that queues on a
// small cluster, and paths of the built binary and the source tree.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "schedlab/job.hpp"
#include "schedlab/report.hpp"

namespace schedlab::testing {

// 40 jobs of 1-8 GPUs arriving every minute; on "2x8:V100" they queue.
std::string small_trace_csv();
inline constexpr const char* kSmallCluster = "2x8:V100";

// Writes small_trace_csv() to DIR/small.csv and returns the path.
std::string write_small_trace(const std::string& dir);

// A sweep spec over the small trace: fifo under two labels x loads {1, 2} x seeds {1, 2}
// (8 cells), reproducible.
nlohmann::ordered_json small_sweep_spec(const std::string& trace_path);

// Writes the outputs of an invariant-checked run of `trace` on `cluster` to DIR, as
// `schedlab run -o DIR` does, and returns DIR.
std::string write_run(const std::string& dir, const Trace& trace, const std::string& cluster);

// The report's <svg class="chart"> element whose aria-label is `title` ("" when there is none).
std::string chart_named(const std::string& html, const std::string& title);

// Every capture group 1 (and 2, 3 when present) of `pattern` in `text`, match by match.
std::vector<std::vector<std::string>> matches(const std::string& text, const std::string& pattern);

// The ConfigError message build_report throws for these inputs, "(no error)" when it throws none.
std::string error_of(const std::vector<std::string>& inputs, const ReportOptions& options = {});

// Quotes a path for /bin/sh.
std::string shell_quote(const std::string& text);
std::string schedlab_binary();
std::string source_dir();

// Every file under `dir` (hidden ones too) by its path relative to `dir`, with its contents:
// two output trees are byte-identical when these are equal.
std::map<std::string, std::string> tree_of(const std::string& dir);

// Number of occurrences of `needle` in `text`.
std::size_t count_of(const std::string& text, const std::string& needle);

}  // namespace schedlab::testing
