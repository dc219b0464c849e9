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
#include "schedlab/printable.hpp"
#include "schedlab/summary_fields.hpp"
#include "schedlab/sweep.hpp"
#include "schedlab/trace.hpp"

namespace schedlab {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

namespace {}  // namespace

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

std::vector<std::string> parse_metric_patterns(const std::vector<std::string>& items) {
  std::vector<std::string> out;
  for (const auto& item : items) {
    for (const auto& part : split_on(item, ',')) {
      const std::string name(trim(part));
      if (name.empty())
        throw ConfigError(fmt::format("--metrics {}: expected METRIC[,METRIC...]", item));
      if (std::find(out.begin(), out.end(), name) == out.end()) out.push_back(name);
    }
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

ToleranceMatch tolerance_for(std::string_view key, MetricDirection direction,
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
  best.percent = kDefaultTolerancePct;
  for (const auto& t : tolerances)
    if (t.pattern == "*") best.percent = t.percent;
  return best;
}

MetricComparison compare_metric(const std::string& cell, std::string_view key,
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
std::vector<std::string_view> union_keys(const std::vector<NumericField>& base,
                                         const std::vector<NumericField>& cur) {
  std::vector<std::string_view> keys;
  keys.reserve(base.size());
  std::unordered_set<std::string_view> seen;
  seen.reserve(base.size() + cur.size());
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

std::optional<double> find_field(const FieldValues& fields, std::string_view key) {
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

// Every leaf of `node` below `prefix` (objects are walked; arrays and scalars are leaves).
void setup_leaves(const Json& node, const std::string& prefix,
                  std::map<std::string, const Json*>& out) {
  if (!node.is_object()) {
    out.emplace(prefix, &node);
    return;
  }
  for (const auto& [key, value] : node.items())
    setup_leaves(value, prefix.empty() ? key : prefix + "." + key, out);
}

const Json* member_at(const Json& summary, std::string_view dotted) {
  const Json* node = &summary;
  for (const auto& part : split_on(dotted, '.')) {
    if (!node->is_object()) return nullptr;
    const auto it = node->find(std::string(part));
    if (it == node->end()) return nullptr;
    node = &*it;
  }
  return node;
}

// The parts of a summary that say how the run was set up; groups marked `recorded_since` were
// added to summary.json later and are compared only where both sides record them.
struct SetupPart {
  std::string_view path;
  bool recorded_since;
};
constexpr SetupPart kSetupParts[] = {
    {"policy", false},        {"policy_params", true}, {"trace.fingerprint", true},
    {"cluster.nodes", false}, {"cluster.gpus", false}, {"cluster.gpu_types", true},
    {kOptionsGroup, false},
};

std::string setup_value_text(const Json* value) {
  return value == nullptr ? std::string("not set") : json_text(*value);
}

}  // namespace

std::vector<std::string> setup_differences(const Json& baseline, const Json& current,
                                           std::vector<std::string>* unrecorded) {
  std::vector<std::string> out;
  for (const SetupPart& part : kSetupParts) {
    const Json* base = member_at(baseline, part.path);
    const Json* cur = member_at(current, part.path);
    if (part.recorded_since && (base == nullptr || cur == nullptr)) {
      if ((base != nullptr || cur != nullptr) && unrecorded != nullptr)
        unrecorded->push_back(fmt::format("{} is not recorded in the {} (not compared)", part.path,
                                          base == nullptr ? "baseline" : "current results"));
      continue;
    }
    std::map<std::string, const Json*> base_leaves;
    std::map<std::string, const Json*> cur_leaves;
    if (base != nullptr) setup_leaves(*base, std::string(part.path), base_leaves);
    if (cur != nullptr) setup_leaves(*cur, std::string(part.path), cur_leaves);
    std::set<std::string> keys;
    for (const auto& [key, value] : base_leaves) keys.insert(key);
    for (const auto& [key, value] : cur_leaves) keys.insert(key);
    for (const auto& key : keys) {
      const auto b = base_leaves.find(key);
      const auto c = cur_leaves.find(key);
      const Json* bv = b == base_leaves.end() ? nullptr : b->second;
      const Json* cv = c == cur_leaves.end() ? nullptr : c->second;
      if (bv != nullptr && cv != nullptr && *bv == *cv) continue;
      out.push_back(fmt::format("{} is {} in the baseline, {} now", key, setup_value_text(bv),
                                setup_value_text(cv)));
    }
  }
  return out;
}

namespace {

// Checks the setups of matched summaries: refuses (ConfigError) or notes their differences.
void check_setups(
    const CheckInput& baseline, const CheckInput& current,
    const std::vector<std::pair<std::string, std::pair<const Json*, const Json*>>>& pairs,
    bool allow_change, CheckReport& report) {
  std::vector<std::string> differences;
  std::set<std::string> unrecorded;
  for (const auto& [cell, summaries] : pairs) {
    std::vector<std::string> missing;
    for (const auto& difference : setup_differences(*summaries.first, *summaries.second, &missing))
      differences.push_back(cell.empty() ? difference : "cell " + cell + ": " + difference);
    unrecorded.insert(missing.begin(), missing.end());
  }
  for (const auto& text : unrecorded) report.notes.push_back("setup: " + text);
  if (differences.empty()) return;
  if (!allow_change) {
    std::string joined;
    for (const auto& d : differences) joined += (joined.empty() ? "" : "; ") + d;
    throw ConfigError(fmt::format(
        "{}: set up differently from the baseline {}: {} (--allow-setup-change compares anyway)",
        current.path, baseline.path, joined));
  }
  for (const auto& d : differences) report.notes.push_back("setup differs: " + d);
}

// String and boolean leaves outside the setup (trace.path, schedlab_version, ...) that differ:
// they may explain changes, and are noted.
void note_other_differences(const Json& base, const Json& cur, const std::string& prefix,
                            std::vector<std::string>& notes) {
  if (!base.is_object() || !cur.is_object()) return;
  // The current object's members by key (ordered_json's find is a linear search).
  std::unordered_map<std::string_view, const Json*> current;
  current.reserve(cur.size());
  for (const auto& [key, value] : cur.items()) current.emplace(key, &value);
  for (const auto& [key, value] : base.items()) {
    const auto it = current.find(key);
    if (it == current.end()) continue;
    const std::string path = prefix.empty() ? key : prefix + "." + key;
    if (std::any_of(std::begin(kSetupParts), std::end(kSetupParts),
                    [&](const SetupPart& part) { return key_has_prefix(path, part.path); }))
      continue;
    const Json& now = *it->second;
    if (value.is_object()) {
      note_other_differences(value, now, path, notes);
    } else if ((value.is_string() || value.is_boolean()) && value != now) {
      notes.push_back(fmt::format("differs: {} is {} in the baseline, {} now", path,
                                  json_text(value), json_text(now)));
    }
  }
}

bool gated(const std::string& metric, const std::vector<std::string>& patterns) {
  if (patterns.empty() || metric == "(cell)") return true;
  return std::any_of(patterns.begin(), patterns.end(),
                     [&](const std::string& p) { return key_has_prefix(metric, p); });
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
  CheckOptions options;
  options.tolerances = tolerances;
  options.allow_setup_change = true;  // the library's old contract: setup differences are notes
  return compare_results(baseline, current, options);
}

CheckReport compare_results(const CheckInput& baseline, const CheckInput& current,
                            const CheckOptions& options) {
  if (baseline.sweep != current.sweep)
    throw ConfigError(fmt::format("{}: is {} but the baseline {} is {}", current.path,
                                  current.sweep ? "sweep results" : "a summary", baseline.path,
                                  baseline.sweep ? "sweep results" : "a summary"));
  // Every tolerance and metric pattern must name something, so a typo does not silently gate
  // nothing.
  const std::vector<Tolerance>& tolerances = options.tolerances;
  require_tolerance_metrics(tolerances, baseline, &current);
  for (const auto& pattern : options.metrics) {
    bool found = false;
    for (const auto* input : {&baseline, &current})
      for (const auto& [cell, summary] : input->summaries)
        for (const auto& f : flatten_numeric(summary))
          found = found || key_has_prefix(f.key, pattern);
    if (!found)
      throw ConfigError(
          fmt::format("--metrics {}: no metric '{}' in {}", pattern, pattern, baseline.path));
  }
  CheckReport report;
  std::vector<std::pair<std::string, std::pair<const Json*, const Json*>>> pairs;
  if (!baseline.sweep) {
    pairs.push_back({"", {&baseline.summaries.front().second, &current.summaries.front().second}});
    check_setups(baseline, current, pairs, options.allow_setup_change, report);
    note_other_differences(baseline.summaries.front().second, current.summaries.front().second, "",
                           report.notes);
    compare_summaries("", baseline.summaries.front().second, current.summaries.front().second,
                      tolerances, report);
  } else {
    std::map<std::string, const Json*> current_cells;
    for (const auto& [key, summary] : current.summaries) current_cells[key] = &summary;
    for (const auto& [key, summary] : baseline.summaries) {
      const auto it = current_cells.find(key);
      if (it != current_cells.end()) pairs.push_back({key, {&summary, it->second}});
    }
    check_setups(baseline, current, pairs, options.allow_setup_change, report);
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
  if (!options.metrics.empty()) {
    const std::size_t before = report.rows.size();
    std::erase_if(report.rows,
                  [&](const MetricComparison& row) { return !gated(row.metric, options.metrics); });
    report.notes.push_back(
        fmt::format("{} metrics left out by --metrics", before - report.rows.size()));
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
  std::string last_cell = "\x01";
  bool header_printed = false;
  for (const auto& row : report.rows) {
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
  out += check_closing_line(report) + "\n";
  return out;
}

std::string check_closing_line(const CheckReport& report) {
  std::map<Verdict, std::size_t> counts;
  for (const auto& row : report.rows) ++counts[row.verdict];
  const std::size_t compared = report.rows.size();
  if (counts[Verdict::kUnchanged] == compared)
    return fmt::format("check: all {} metrics unchanged", compared);
  return fmt::format(
      "check: {} metrics compared: {} regression{}, {} better, {} worse within tolerance, {} "
      "changed without a verdict, {} new, {} missing, {} unchanged",
      compared, report.regressions, report.regressions == 1 ? "" : "s", counts[Verdict::kBetter],
      counts[Verdict::kWorseWithinTolerance], counts[Verdict::kChanged], counts[Verdict::kNew],
      counts[Verdict::kMissing], counts[Verdict::kUnchanged]);
}

namespace {

Json optional_number(std::optional<double> value) {
  return value ? Json(*value) : Json(nullptr);
}

// `text` as the message of a GitHub workflow command, or (`property`) as a property value.
std::string github_text(std::string_view text, bool property) {
  std::string out;
  for (const char c : printable_text(text)) {
    if (c == '%')
      out += "%25";
    else if (property && c == ':')
      out += "%3A";
    else if (property && c == ',')
      out += "%2C";
    else
      out += c;
  }
  return out;
}

// "wait_s.mean: 100 -> 110 (+10 (+10.00%)), tolerance 0.005%, lower is better"
std::string row_sentence(const MetricComparison& row) {
  std::string text = row.cell.empty() ? row.metric : "cell " + row.cell + ": " + row.metric;
  if (row.metric == "(cell)") return text + " is missing";
  text += fmt::format(": {} -> {}", value_text(row.baseline), value_text(row.current));
  if (const std::string change = change_text(row); !change.empty()) text += " (" + change + ")";
  if (row.tolerance_pct) text += ", tolerance " + format_number(*row.tolerance_pct) + "%";
  if (row.direction != MetricDirection::kUnknown)
    text += fmt::format(", {}", direction_text(row.direction));
  return text;
}

}  // namespace

std::string format_check_json(const CheckReport& report, const CheckInput& baseline,
                              const CheckInput& current) {
  Json out;
  out["baseline"] = baseline.path;
  out["current"] = current.path;
  out["regressions"] = report.regressions;
  out["passed"] = report.regressions == 0;
  out["summary"] = check_closing_line(report);
  Json rows = Json::array();
  for (const auto& row : report.rows) {
    Json r;
    r["cell"] = row.cell;
    r["metric"] = row.metric;
    r["baseline"] = optional_number(row.baseline);
    r["current"] = optional_number(row.current);
    r["change_pct"] = row.baseline && row.current && std::isfinite(row.change_pct)
                          ? Json(row.change_pct)
                          : Json(nullptr);
    r["change"] = change_text(row);
    r["tolerance_pct"] = optional_number(row.tolerance_pct);
    r["direction"] = direction_text(row.direction);
    r["verdict"] = verdict_text(row.verdict);
    r["regression"] = row.regression;
    rows.push_back(std::move(r));
  }
  out["rows"] = std::move(rows);
  out["notes"] = report.notes;
  return out.dump(2) + "\n";
}

std::string format_check_junit(const CheckReport& report, const CheckInput& baseline,
                               const CheckInput& current) {
  // Suites in the order their cells first appear.
  std::vector<std::string> cells;
  std::map<std::string, std::vector<const MetricComparison*>> by_cell;
  for (const auto& row : report.rows) {
    auto [it, added] = by_cell.try_emplace(row.cell);
    if (added) cells.push_back(row.cell);
    it->second.push_back(&row);
  }
  if (cells.empty()) cells.emplace_back();
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out += fmt::format("<testsuites name=\"schedlab check\" tests=\"{}\" failures=\"{}\">\n",
                     report.rows.size(), report.regressions);
  std::string notes;
  for (const auto& note : report.notes) notes += note + "\n";
  for (const auto& cell : cells) {
    const auto& rows = by_cell[cell];
    const auto failures = static_cast<std::size_t>(std::count_if(
        rows.begin(), rows.end(), [](const MetricComparison* r) { return r->regression; }));
    const std::string suite = cell.empty() ? "summary" : "cell " + cell;
    out += fmt::format(
        "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"0\">\n",
        markup_escape(suite), rows.size(), failures);
    out += fmt::format(
        "    <properties>\n      <property name=\"baseline\" value=\"{}\"/>\n"
        "      <property name=\"current\" value=\"{}\"/>\n    </properties>\n",
        markup_escape(baseline.path), markup_escape(current.path));
    for (const MetricComparison* row : rows) {
      out += fmt::format("    <testcase classname=\"schedlab.check\" name=\"{}\" time=\"0\"",
                         markup_escape(row->metric));
      if (!row->regression) {
        out += "/>\n";
        continue;
      }
      out +=
          fmt::format(">\n      <failure type=\"regression\" message=\"{}\"/>\n    </testcase>\n",
                      markup_escape(row_sentence(*row)));
    }
    if (!notes.empty())
      out += fmt::format("    <system-out>{}</system-out>\n", markup_escape(notes));
    out += "  </testsuite>\n";
  }
  out += "</testsuites>\n";
  return out;
}

std::string format_check_github(const CheckReport& report) {
  std::string out;
  for (const auto& row : report.rows) {
    if (row.regression)
      out += fmt::format("::error title={}::{}\n", github_text("schedlab check: regression", true),
                         github_text(row_sentence(row), false));
    else if (row.verdict == Verdict::kWorseWithinTolerance)
      out += fmt::format("::warning title={}::{}\n",
                         github_text("schedlab check: worse within tolerance", true),
                         github_text(row_sentence(row), false));
  }
  for (const auto& note : report.notes)
    out += fmt::format("::notice title={}::{}\n", github_text("schedlab check", true),
                       github_text(note, false));
  out += check_closing_line(report) + "\n";
  return out;
}

}  // namespace schedlab
