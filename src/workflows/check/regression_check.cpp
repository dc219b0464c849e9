#include "schedlab/regression_check.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include <fmt/format.h>

#include "schedlab/csv.hpp"
#include "schedlab/error.hpp"
#include "schedlab/json_text.hpp"
#include "schedlab/output.hpp"
#include "schedlab/summary_fields.hpp"
#include "schedlab/sweep.hpp"
#include "schedlab/trace.hpp"

namespace schedlab {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

const char* verdict_text(Verdict verdict) {
  switch (verdict) {
    case Verdict::kUnchanged: return "unchanged";
    case Verdict::kBetter: return "better";
    case Verdict::kWorseWithinTolerance: return "worse, within tolerance";
    case Verdict::kRegression: return "REGRESSION";
    case Verdict::kChanged: return "changed";
    case Verdict::kNew: return "new";
    case Verdict::kMissing: return "missing";
  }
  return "?";
}

std::vector<Tolerance> parse_tolerances(const std::vector<std::string>& items) {
  std::vector<Tolerance> out;
  for (const auto& item : items) {
    const auto equals = item.rfind('=');
    if (equals == std::string::npos || equals == 0)
      throw ConfigError(
          fmt::format("--tolerance {}: expected METRIC=PERCENT (e.g. wait_s.p95=5%)", item));
    Tolerance t;
    t.pattern = std::string(trim(item.substr(0, equals)));
    std::string number(trim(item.substr(equals + 1)));
    if (number.ends_with("%")) number.pop_back();
    const auto percent = parse_double(number);
    if (!percent || !std::isfinite(*percent) || *percent < 0)
      throw ConfigError(fmt::format("--tolerance {}: expected a percentage >= 0 after '='", item));
    if (metric_direction(t.pattern) == MetricDirection::kNeverGated)
      throw ConfigError(fmt::format("--tolerance {}: {} is a wall-clock timing and is never gated",
                                    item, t.pattern));
    t.percent = *percent;
    for (const auto& other : out)
      if (other.pattern == t.pattern)
        throw ConfigError(fmt::format("--tolerance {}: '{}' given twice", item, t.pattern));
    out.push_back(std::move(t));
  }
  return out;
}

namespace {

// Builds an ordered_json from SAX events in time linear in the document (ordered_json's own
// insertion searches an object's earlier keys, and parsing with a callback scans an object's
// members after each member object). It gives up (parse returns false, unusual() is true) on a
// key given twice in one object or nesting near kMaxJsonDepth, which parse_json_text rules on.
class OrderedJsonBuilder {
 public:
  bool null() { return put(Json(nullptr)); }
  bool boolean(bool value) { return put(Json(value)); }
  bool number_integer(Json::number_integer_t value) { return put(Json(value)); }
  bool number_unsigned(Json::number_unsigned_t value) { return put(Json(value)); }
  bool number_float(Json::number_float_t value, const Json::string_t& /*text*/) {
    return put(Json(value));
  }
  bool string(Json::string_t& value) { return put(Json(std::move(value))); }
  bool binary(Json::binary_t& value) { return put(Json::binary(std::move(value))); }
  bool start_object(std::size_t /*size*/) { return open(Json::object()); }
  bool start_array(std::size_t /*size*/) { return open(Json::array()); }
  bool end_object() { return close(); }
  bool end_array() { return close(); }
  bool key(Json::string_t& name) {
    Frame& frame = stack_.back();
    auto& object = frame.node->get_ref<Json::object_t&>();
    if (!frame.keys.insert(name).second) return give_up();
    object.Container::emplace_back(std::move(name), nullptr);
    frame.pending = &object.back().second;
    return true;
  }
  bool parse_error(std::size_t /*position*/, const std::string& /*token*/,
                   const nlohmann::detail::exception& /*error*/) {
    return false;
  }
  bool unusual() const { return unusual_; }
  Json take() { return std::move(root_); }

 private:
  struct Frame {
    Json* node;
    std::unordered_set<std::string> keys;  // objects: the keys so far
    Json* pending = nullptr;               // objects: where the value of the last key goes
  };
  bool give_up() {
    unusual_ = true;
    return false;
  }
  // Stores `value` where the next value goes; returns where it is.
  Json* place(Json value) {
    if (stack_.empty()) {
      root_ = std::move(value);
      return &root_;
    }
    Frame& frame = stack_.back();
    if (frame.node->is_array()) {
      frame.node->push_back(std::move(value));
      return &frame.node->back();
    }
    *frame.pending = std::move(value);
    return frame.pending;
  }
  bool put(Json value) {
    place(std::move(value));
    return true;
  }
  bool open(Json container) {
    if (stack_.size() + 8 >= static_cast<std::size_t>(kMaxJsonDepth)) return give_up();
    Json* node = place(std::move(container));
    stack_.push_back(Frame{node, {}, nullptr});
    return true;
  }
  bool close() {
    stack_.pop_back();
    return true;
  }
  Json root_;
  std::vector<Frame> stack_;
  bool unusual_ = false;
};

// parse_json_text<Json>(text, file) in time near-linear in the text: the same document for
// well-formed input; malformed input, keys given twice and deep nesting go to parse_json_text,
// so its errors and rules apply unchanged.
Json parse_summary_text(const std::string& text, const std::string& file) {
  OrderedJsonBuilder builder;
  if (Json::sax_parse(text, &builder) && !builder.unusual()) return builder.take();
  return parse_json_text<Json>(text, file);
}

}  // namespace

CheckInput summary_check_input(const std::string& label, Json summary) {
  CheckInput input;
  input.path = label;
  input.summaries.emplace_back("", std::move(summary));
  return input;
}

CheckInput load_check_input(const std::string& path) {
  std::error_code ec;
  if (!fs::exists(path, ec)) throw ConfigError(fmt::format("{}: no such file or directory", path));
  std::string file = path;
  if (fs::is_directory(path, ec)) {
    // A directory is an output set, read as a whole only when its writing completed.
    if (fs::exists(fs::path(path) / "results.jsonl", ec) ||
        fs::exists(fs::path(path) / "summary.json", ec))
      require_complete_output_set(path);
    if (fs::exists(fs::path(path) / "results.jsonl", ec)) {
      file = (fs::path(path) / "results.jsonl").string();
    } else if (fs::exists(fs::path(path) / "summary.json", ec)) {
      file = (fs::path(path) / "summary.json").string();
    } else {
      throw ConfigError(
          fmt::format("{}: directory holds neither summary.json nor results.jsonl", path));
    }
  }
  CheckInput input;
  input.path = file;
  if (file.ends_with(".jsonl")) {
    input.sweep = true;
    std::set<std::string> keys;
    for (auto& row : read_sweep_results(file)) {
      const std::string key = cell_key(row);
      if (!keys.insert(key).second)
        throw ConfigError(fmt::format("{}: cell '{}' appears twice", file, key));
      if (row["status"] == "ok") {
        input.summaries.emplace_back(key, std::move(row["summary"]));
      } else {
        input.failed_cells.push_back(key);
      }
    }
    return input;
  }
  const std::string text = read_file_bytes(file);
  Json summary;
  try {
    summary = parse_summary_text(text, file);
  } catch (const nlohmann::json::parse_error& e) {
    throw ConfigError(fmt::format("{}: not valid JSON (error at byte {})", file, e.byte));
  } catch (const nlohmann::json::exception& e) {
    throw ConfigError(fmt::format("{}: not valid JSON: {}", file, json_error_text(e)));
  }
  if (!summary.is_object())
    throw ConfigError(
        fmt::format("{}: expected a summary JSON object, got {}", file, summary.type_name()));
  if (flatten_numeric(summary).empty())
    throw ConfigError(fmt::format("{}: not a summary: it has no numeric metrics", file));
  input.summaries.emplace_back("", std::move(summary));
  return input;
}

namespace {

struct ToleranceMatch {
  std::optional<double> percent;
  bool explicit_match = false;  // by exact key or prefix, not by "*"
};

ToleranceMatch tolerance_for(const std::string& key, MetricDirection direction,
                             const std::vector<Tolerance>& tolerances) {
  ToleranceMatch best;
  std::size_t best_length = 0;
  if (direction == MetricDirection::kNeverGated) return best;
  for (const auto& t : tolerances) {
    if (t.pattern == "*") continue;
    if (key_has_prefix(key, t.pattern) &&
        (!best.explicit_match || t.pattern.size() > best_length)) {
      best.percent = t.percent;
      best.explicit_match = true;
      best_length = t.pattern.size();
    }
  }
  if (best.explicit_match) return best;
  const bool directional =
      direction == MetricDirection::kLowerIsBetter || direction == MetricDirection::kHigherIsBetter;
  if (!directional) return best;
  best.percent = 0.0;
  for (const auto& t : tolerances)
    if (t.pattern == "*") best.percent = t.percent;
  return best;
}

MetricComparison compare_metric(const std::string& cell, const std::string& key,
                                std::optional<double> base, std::optional<double> cur,
                                const std::vector<Tolerance>& tolerances) {
  MetricComparison row;
  row.cell = cell;
  row.metric = key;
  row.baseline = base;
  row.current = cur;
  row.direction = metric_direction(key);
  const ToleranceMatch tolerance = tolerance_for(key, row.direction, tolerances);
  row.tolerance_pct = tolerance.percent;
  const bool directional = row.direction == MetricDirection::kLowerIsBetter ||
                           row.direction == MetricDirection::kHigherIsBetter;
  if (!cur) {
    row.verdict = Verdict::kMissing;
    row.regression = directional || tolerance.explicit_match;
    return row;
  }
  if (!base) {
    row.verdict = Verdict::kNew;
    return row;
  }
  const double diff = *cur - *base;
  // Summary values are rounded to fixed decimals; anything below this is representation noise.
  if (std::abs(diff) <= 1e-12 * std::max(1.0, std::abs(*base))) {
    row.verdict = Verdict::kUnchanged;
    return row;
  }
  row.change_pct = *base != 0.0 ? diff / std::abs(*base) * 100.0
                                : (diff > 0 ? std::numeric_limits<double>::infinity()
                                            : -std::numeric_limits<double>::infinity());
  const bool beyond = tolerance.percent && std::abs(row.change_pct) > *tolerance.percent + 1e-9;
  if (directional) {
    const bool worse = row.direction == MetricDirection::kLowerIsBetter ? diff > 0 : diff < 0;
    if (!worse) {
      row.verdict = Verdict::kBetter;
    } else if (beyond) {
      row.verdict = Verdict::kRegression;
      row.regression = true;
    } else {
      row.verdict = Verdict::kWorseWithinTolerance;
    }
  } else if (tolerance.explicit_match && beyond) {
    row.verdict = Verdict::kRegression;
    row.regression = true;
  } else {
    row.verdict = Verdict::kChanged;
  }
  return row;
}

// Metrics of both summaries: the baseline's in its order, then the current's new ones.
std::vector<std::string> union_keys(const std::vector<NumericField>& base,
                                    const std::vector<NumericField>& cur) {
  std::vector<std::string> keys;
  std::set<std::string> seen;
  for (const auto& f : base)
    if (seen.insert(f.key).second) keys.push_back(f.key);
  for (const auto& f : cur)
    if (seen.insert(f.key).second) keys.push_back(f.key);
  return keys;
}

// Each metric's value: the first field of that key, as a walk through the fields finds it.
using FieldValues = std::unordered_map<std::string_view, double>;
FieldValues field_values(const std::vector<NumericField>& fields) {
  FieldValues out;
  out.reserve(fields.size());
  for (const auto& f : fields) out.emplace(f.key, f.value);
  return out;
}

std::optional<double> find_field(const FieldValues& fields, const std::string& key) {
  const auto it = fields.find(key);
  if (it == fields.end()) return std::nullopt;
  return it->second;
}

void compare_summaries(const std::string& cell, const Json& base, const Json& cur,
                       const std::vector<Tolerance>& tolerances, CheckReport& report) {
  const auto base_fields = flatten_numeric(base);
  const auto cur_fields = flatten_numeric(cur);
  const FieldValues base_values = field_values(base_fields);
  const FieldValues cur_values = field_values(cur_fields);
  for (const auto& key : union_keys(base_fields, cur_fields)) {
    report.rows.push_back(compare_metric(cell, key, find_field(base_values, key),
                                         find_field(cur_values, key), tolerances));
  }
}

std::string value_text(std::optional<double> value) {
  return value ? format_number(*value) : "-";
}

std::string change_text(const MetricComparison& row) {
  if (!row.baseline || !row.current) return "";
  if (row.verdict == Verdict::kUnchanged) return "0";
  const double diff = *row.current - *row.baseline;
  std::string pct = std::isinf(row.change_pct) ? (row.change_pct > 0 ? "+inf%" : "-inf%")
                                               : fmt::format("{:+.2f}%", row.change_pct);
  return fmt::format("{}{} ({})", diff > 0 ? "+" : "", format_number(round_to(diff, 6)), pct);
}

std::string setup_text(const Json& summary) {
  std::vector<std::string> parts;
  if (summary.contains("policy") && summary["policy"].is_string())
    parts.push_back(summary["policy"].get<std::string>());
  if (const std::string trace = summary_trace_path(summary); !trace.empty()) parts.push_back(trace);
  if (const auto gpus = numeric_at(summary, "cluster.gpus"))
    parts.push_back(fmt::format("{} GPUs", *gpus));
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : ", ") + p;
  return out;
}

// String and boolean leaves (policy, trace, options) that differ: the two runs were set up
// differently, which explains changes but is not itself a regression.
void note_setup_differences(const Json& base, const Json& cur, const std::string& prefix,
                            std::vector<std::string>& notes) {
  if (!base.is_object() || !cur.is_object()) return;
  // The current object's members by key (ordered_json's find is a linear search).
  std::unordered_map<std::string_view, const Json*> current;
  current.reserve(cur.size());
  for (const auto& [key, value] : cur.items()) current.emplace(key, &value);
  for (const auto& [key, value] : base.items()) {
    const auto it = current.find(key);
    if (it == current.end()) continue;
    const Json& now = *it->second;
    if (value.is_object()) {
      note_setup_differences(value, now, prefix.empty() ? key : prefix + "." + key, notes);
    } else if ((value.is_string() || value.is_boolean()) && value != now) {
      notes.push_back(fmt::format("setup differs: {} is {} in the baseline, {} now",
                                  prefix.empty() ? key : prefix + "." + key, json_text(value),
                                  json_text(now)));
    }
  }
}

}  // namespace

void require_tolerance_metrics(const std::vector<Tolerance>& tolerances, const CheckInput& baseline,
                               const CheckInput* current) {
  for (const auto& t : tolerances) {
    if (t.pattern == "*") continue;
    bool found = false;
    for (const auto* input : {&baseline, current}) {
      if (input == nullptr) continue;
      for (const auto& [cell, summary] : input->summaries)
        for (const auto& f : flatten_numeric(summary))
          found = found || key_has_prefix(f.key, t.pattern);
    }
    if (!found)
      throw ConfigError(fmt::format("--tolerance {}={}%: no metric '{}' in {}", t.pattern,
                                    format_number(t.percent), t.pattern, baseline.path));
  }
}

CheckReport compare_results(const CheckInput& baseline, const CheckInput& current,
                            const std::vector<Tolerance>& tolerances) {
  if (baseline.sweep != current.sweep)
    throw ConfigError(fmt::format("{}: is {} but the baseline {} is {}", current.path,
                                  current.sweep ? "sweep results" : "a summary", baseline.path,
                                  baseline.sweep ? "sweep results" : "a summary"));
  // Every tolerance must name something, so a typo does not silently gate nothing.
  require_tolerance_metrics(tolerances, baseline, &current);
  CheckReport report;
  if (!baseline.sweep) {
    compare_summaries("", baseline.summaries.front().second, current.summaries.front().second,
                      tolerances, report);
    note_setup_differences(baseline.summaries.front().second, current.summaries.front().second, "",
                           report.notes);
  } else {
    std::map<std::string, const Json*> current_cells;
    for (const auto& [key, summary] : current.summaries) current_cells[key] = &summary;
    const std::set<std::string> current_failed(current.failed_cells.begin(),
                                               current.failed_cells.end());
    std::set<std::string> baseline_keys;
    for (const auto& [key, summary] : baseline.summaries) {
      baseline_keys.insert(key);
      const auto it = current_cells.find(key);
      if (it == current_cells.end()) {
        MetricComparison row;
        row.cell = key;
        row.metric = "(cell)";
        row.verdict = Verdict::kMissing;
        row.regression = true;
        report.rows.push_back(row);
        report.notes.push_back(fmt::format("cell {} {} in {}", key,
                                           current_failed.contains(key) ? "failed" : "is missing",
                                           current.path));
        continue;
      }
      compare_summaries(key, summary, *it->second, tolerances, report);
    }
    for (const auto& key : baseline.failed_cells) baseline_keys.insert(key);
    for (const auto& [key, summary] : current.summaries)
      if (!baseline_keys.contains(key))
        report.notes.push_back(fmt::format("new cell (not in the baseline): {}", key));
  }
  for (const auto& row : report.rows)
    if (row.regression) ++report.regressions;
  return report;
}

std::string format_check_report(const CheckReport& report, const CheckInput& baseline,
                                const CheckInput& current, bool all_rows) {
  std::string out;
  if (!baseline.sweep) {
    out += fmt::format("baseline: {} ({})\n", baseline.path,
                       setup_text(baseline.summaries.front().second));
    out += fmt::format("current:  {} ({})\n", current.path,
                       setup_text(current.summaries.front().second));
  } else {
    out += fmt::format("baseline: {} ({} cells)\n", baseline.path,
                       baseline.summaries.size() + baseline.failed_cells.size());
    out += fmt::format("current:  {} ({} cells)\n", current.path,
                       current.summaries.size() + current.failed_cells.size());
  }
  std::size_t width = 6;
  for (const auto& row : report.rows) width = std::max(width, row.metric.size());
  const std::string header =
      fmt::format("{:<{}}  {:>16}  {:>16}  {:>28}  {:>9}  {}\n", "metric", width, "baseline",
                  "current", "change", "tolerance", "verdict");
  std::map<Verdict, std::size_t> counts;
  std::string last_cell = "\x01";
  bool header_printed = false;
  for (const auto& row : report.rows) {
    ++counts[row.verdict];
    if (!all_rows && row.verdict == Verdict::kUnchanged) continue;
    if (!header_printed) {
      out += header;
      header_printed = true;
    }
    if (row.cell != last_cell && !row.cell.empty()) out += fmt::format("cell {}\n", row.cell);
    last_cell = row.cell;
    std::string verdict = verdict_text(row.verdict);
    if (row.verdict == Verdict::kMissing && row.regression) verdict = "REGRESSION (missing)";
    if (row.verdict != Verdict::kUnchanged && row.verdict != Verdict::kNew &&
        row.metric != "(cell)")
      verdict += fmt::format(" ({})", direction_text(row.direction));
    out += fmt::format("{:<{}}  {:>16}  {:>16}  {:>28}  {:>9}  {}\n", row.metric, width,
                       value_text(row.baseline), value_text(row.current), change_text(row),
                       row.tolerance_pct ? format_number(*row.tolerance_pct) + "%" : "-", verdict);
  }
  for (const auto& note : report.notes) out += "note: " + note + "\n";
  const std::size_t compared = report.rows.size();
  if (counts[Verdict::kUnchanged] == compared) {
    out += fmt::format("check: all {} metrics unchanged\n", compared);
  } else {
    out += fmt::format(
        "check: {} metrics compared: {} regression{}, {} better, {} worse within tolerance, {} "
        "changed without a "
        "verdict, {} new, {} missing, {} unchanged\n",
        compared, report.regressions, report.regressions == 1 ? "" : "s", counts[Verdict::kBetter],
        counts[Verdict::kWorseWithinTolerance], counts[Verdict::kChanged], counts[Verdict::kNew],
        counts[Verdict::kMissing], counts[Verdict::kUnchanged]);
  }
  return out;
}

}  // namespace schedlab
