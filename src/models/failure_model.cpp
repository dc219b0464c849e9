#include "schedlab/failure_model.hpp"

#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "schedlab/csv.hpp"
#include "schedlab/error.hpp"
#include "schedlab/trace.hpp"

namespace schedlab {

FailureTrace parse_failure_trace(const std::string& path, std::string_view text) {
  FailureTrace trace;
  trace.path = path;
  CsvReader csv(text, path);
  std::vector<std::string_view> fields;
  if (!csv.next_row(fields))
    throw TraceError(path, 1, "empty file: expected a header row with node, down_time, up_time");
  const CsvHeader header(fields, path, csv.line());
  const std::size_t columns = fields.size();
  const char* names[3] = {"node", "down_time", "up_time"};
  std::size_t index[3] = {};
  for (int c = 0; c < 3; ++c) {
    const auto found = header.find(names[c]);
    if (!found)
      throw TraceError(
          path, 1,
          fmt::format("missing required column '{}' (required: node, down_time, up_time)",
                      names[c]));
    index[c] = *found;
  }
  while (csv.next_row(fields)) {
    const std::size_t line = csv.line();
    if (fields.size() != columns)
      throw TraceError(
          path, line,
          fmt::format("expected {} fields as in the header, got {}", columns, fields.size()));
    FailureTraceRow row;
    row.line = static_cast<std::uint32_t>(line);
    const auto node = parse_int(fields[index[0]]);
    if (!node || *node < 0 || *node > 0xFFFFFFFEll)
      throw TraceError(path, line,
                       fmt::format("column 'node': expected a node index >= 0, got '{}'",
                                   trim(fields[index[0]])));
    row.node = static_cast<NodeIndex>(*node);
    const auto down = parse_seconds_ms(fields[index[1]]);
    if (!down || *down < 0)
      throw TraceError(path, line,
                       fmt::format("column 'down_time': expected seconds >= 0, got '{}'",
                                   trim(fields[index[1]])));
    const auto up = parse_seconds_ms(fields[index[2]]);
    if (!up || *up <= *down)
      throw TraceError(
          path, line,
          fmt::format("column 'up_time': expected seconds after down_time ({}), got '{}'",
                      trim(fields[index[1]]), trim(fields[index[2]])));
    row.down_ms = *down;
    row.up_ms = *up;
    trace.rows.push_back(row);
  }
  if (trace.rows.empty())
    throw TraceError(path, 2, "no failures: the file has a header but no rows");
  std::stable_sort(
      trace.rows.begin(), trace.rows.end(),
      [](const FailureTraceRow& a, const FailureTraceRow& b) { return a.down_ms < b.down_ms; });
  // A node is down at most once at a time: its intervals must not overlap.
  std::map<NodeIndex, const FailureTraceRow*> last_of_node;
  for (const auto& row : trace.rows) {
    auto [it, inserted] = last_of_node.try_emplace(row.node, &row);
    if (!inserted) {
      if (row.down_ms < it->second->up_ms)
        throw TraceError(
            path, row.line,
            fmt::format("node {} fails at {} s while still down from line {} "
                        "(until {} s)",
                        row.node, static_cast<double>(row.down_ms) / kMsPerSecond, it->second->line,
                        static_cast<double>(it->second->up_ms) / kMsPerSecond));
      it->second = &row;
    }
  }
  return trace;
}

FailureTrace load_failure_trace(const std::string& path) {
  return parse_failure_trace(path, read_file_bytes(path));
}

void FailureTrace::check_nodes(std::size_t node_count) const {
  for (const auto& row : rows) {
    if (row.node >= node_count)
      throw TraceError(path, row.line,
                       fmt::format("column 'node': node {} does not exist (the cluster has {} "
                                   "nodes, numbered from 0)",
                                   row.node, node_count));
  }
}

void parse_failures_option(const std::string& text, RunOptions& options) {
  auto fail = [&text](const std::string& why) {
    return ConfigError(
        fmt::format("--failures '{}': {} (expected rate=R[,repair=H][,seed=S])", text, why));
  };
  bool have_rate = false;
  std::set<std::string, std::less<>> seen;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = text.find(',', start);
    const std::string_view item = trim(std::string_view(text).substr(
        start, comma == std::string::npos ? std::string::npos : comma - start));
    start = comma == std::string::npos ? text.size() + 1 : comma + 1;
    const std::size_t eq = item.find('=');
    if (eq == std::string_view::npos) throw fail(fmt::format("item '{}' is not key=value", item));
    const std::string_view key = trim(item.substr(0, eq));
    const std::string_view value = trim(item.substr(eq + 1));
    if (!seen.insert(std::string(key)).second) throw fail(fmt::format("key '{}' given twice", key));
    if (key == "rate") {
      const auto rate = parse_double(value);
      if (!rate || *rate <= 0 || *rate > 1e6)
        throw fail(fmt::format("rate '{}' is not a number in (0, 1e6]", value));
      options.failure_rate_per_1000_node_days = *rate;
      have_rate = true;
    } else if (key == "repair") {
      const auto hours = parse_double(value);
      const auto ms = hours ? seconds_to_ms(*hours * 3600.0) : std::nullopt;
      if (!ms || *ms <= 0)
        throw fail(fmt::format("repair '{}' is not a number of hours > 0", value));
      options.repair_ms = *ms;
    } else if (key == "seed") {
      const auto seed = parse_int(value);
      if (!seed || *seed < 0) throw fail(fmt::format("seed '{}' is not an integer >= 0", value));
      options.failure_seed = static_cast<std::uint64_t>(*seed);
    } else {
      throw fail(fmt::format("unknown key '{}'", key));
    }
  }
  if (!have_rate) throw fail("rate is required");
  options.failures_text = text;
}

double mean_ms_between_failures(std::size_t nodes, double rate_per_1000_node_days) {
  const double per_node_per_ms = rate_per_1000_node_days / 1000.0 / (24.0 * kMsPerHour);
  return 1.0 / (per_node_per_ms * static_cast<double>(nodes));
}

}  // namespace schedlab
