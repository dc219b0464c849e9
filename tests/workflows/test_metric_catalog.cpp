// The metric catalog and docs/metrics.md list the same keys, and every key a summary can hold
// has an entry.
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "schedlab/metric_catalog.hpp"
#include "schedlab/summary_fields.hpp"
#include "workflows/fixtures.hpp"

using namespace schedlab;
using namespace schedlab::testing;

namespace {

// Keys (first column, without backticks) of the table under "## Metric catalog".
std::vector<std::string> documented_keys(const std::string& markdown) {
  std::vector<std::string> keys;
  std::istringstream lines(markdown);
  std::string line;
  bool in_section = false, in_table = false;
  while (std::getline(lines, line)) {
    if (line.starts_with("## ")) {
      in_section = line == "## Metric catalog";
      continue;
    }
    if (!in_section) continue;
    if (!line.starts_with("|")) {
      if (in_table) break;
      continue;
    }
    in_table = true;
    const std::size_t end = line.find('|', 1);
    std::string cell = line.substr(1, end - 1);
    if (cell.find('`') == std::string::npos) continue;  // the heading and the rule
    std::string key;
    for (const char c : cell)
      if (c != '`' && c != ' ') key += c;
    keys.push_back(key);
  }
  return keys;
}

}  // namespace

TEST_CASE("docs/metrics.md lists exactly the catalog's keys, in its order", "[workflows]") {
  std::ifstream in(source_dir() + "/docs/metrics.md");
  REQUIRE(in);
  std::stringstream text;
  text << in.rdbuf();
  std::vector<std::string> catalog;
  for (const auto& metric : metric_catalog())
    catalog.push_back(std::string(metric.key) + (metric.group ? ".*" : ""));
  CHECK(documented_keys(text.str()) == catalog);
}

TEST_CASE("every metric of the committed summaries has a catalog entry", "[workflows]") {
  for (const char* file : {"/tests/golden/fifo-small/summary.json",
                           "/tests/baselines/philly-6214e9_32x8-V100_models_las.json",
                           "/tests/baselines/alibaba-openb-pods-2000_openb-nodes_fifo.json"}) {
    std::ifstream in(source_dir() + file);
    REQUIRE(in);
    const auto summary = nlohmann::ordered_json::parse(in);
    for (const auto& field : flatten_numeric(summary)) {
      INFO(file << ": " << field.key);
      CHECK(find_metric(field.key) != nullptr);
    }
  }
}

TEST_CASE("catalog lookups: exact keys, groups, directions", "[workflows]") {
  REQUIRE(find_metric("wait_s.p95") != nullptr);
  CHECK(find_metric("wait_s.p95")->unit == "s");
  CHECK(find_metric("utilization")->unit == "fraction");
  CHECK(find_metric("jobs.rejected_reasons.needs more GPUs than the cluster has")->key ==
        "jobs.rejected_reasons");
  CHECK(find_metric("options.seed")->key == kOptionsGroup);
  CHECK(find_metric("wait_s") == nullptr);
  CHECK(find_metric("no_such_metric") == nullptr);
  CHECK(metric_direction("engine.wall_s") == MetricDirection::kNeverGated);
  CHECK(metric_direction("no_such_metric") == MetricDirection::kUnknown);
  for (const auto& metric : metric_catalog()) {
    INFO(metric.key);
    CHECK(find_metric(metric.key) == &metric);  // keys are unique
    CHECK_FALSE(metric.label.empty());
    CHECK_FALSE(metric.description.empty());
  }
}

TEST_CASE("the terminal summary shows durations in human units and fractions in percent",
          "[workflows]") {
  CHECK(human_duration_text(0) == "0 s");
  CHECK(human_duration_text(0.013) == "13.0 ms");
  CHECK(human_duration_text(5.5) == "5.50 s");
  CHECK(human_duration_text(119) == "119 s");
  CHECK(human_duration_text(120) == "2.00 min");
  CHECK(human_duration_text(40539.6) == "11.3 h");
  CHECK(human_duration_text(47 * 3600.0) == "47.0 h");
  CHECK(human_duration_text(48 * 3600.0) == "2.00 d");
  CHECK(human_duration_text(14000947) == "162 d");
  CHECK(human_duration_text(-90) == "-90.0 s");
  CHECK(metric_human_text(catalog_metric("wait_s.mean"), 40539.6) == "11.3 h");
  CHECK(metric_human_text(catalog_metric("utilization"), 0.17301) == "17.3 %");
  CHECK(metric_human_text(catalog_metric("jobs.submitted"), 1985) == "1985");
  CHECK(metric_human_text(catalog_metric("gpu_hours.busy"), 172223.571) == "172223.57 GPU-h");
}
