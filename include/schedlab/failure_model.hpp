// Node failures (docs/cluster.md): generated as a Poisson process (--failures rate=R[,repair=H]
// [,seed=S], R failures per 1000 node-days, H hours to repair) or replayed from a file
// (--failure-trace FILE: node, down_time, up_time).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "schedlab/run_options.hpp"
#include "schedlab/types.hpp"

namespace schedlab {

struct FailureTraceRow {
  NodeIndex node = 0;
  TimeMs down_ms = 0;  // the node fails (and kills its jobs) at this time
  TimeMs up_ms = 0;    // and is back in service at this time (> down_ms)
  std::uint32_t line = 0;
};

struct FailureTrace {
  std::string path;
  std::vector<FailureTraceRow> rows;  // by (down_ms, file order); no node's intervals overlap
  // Throws TraceError "FILE:LINE: ..." for a row naming a node the cluster does not have.
  void check_nodes(std::size_t node_count) const;
};

// Parses the CSV text of a failure trace: header with columns node, down_time, up_time (seconds
// from the job trace's time origin), in any order. Throws TraceError "FILE:LINE: message".
FailureTrace parse_failure_trace(const std::string& path, std::string_view text);
// Reads and parses a file (a name ending in .gz is decompressed).
FailureTrace load_failure_trace(const std::string& path);

// Parses "rate=R[,repair=H][,seed=S]" into options; throws ConfigError naming the bad item.
void parse_failures_option(const std::string& text, RunOptions& options);

// Mean milliseconds between failures of a cluster of `nodes` nodes at `rate_per_1000_node_days`.
double mean_ms_between_failures(std::size_t nodes, double rate_per_1000_node_days);

}  // namespace schedlab
