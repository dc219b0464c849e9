// jobs.csv and attempts.csv take their columns from one table each (output_columns.hpp), and
// docs/metrics.md lists exactly those columns, units and meanings, in file order.
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "schedlab/output_columns.hpp"
#include "workflows/fixtures.hpp"

using namespace schedlab;
using namespace schedlab::testing;

namespace {

// The table rows (after the heading and the rule) of the first table under `heading`.
std::vector<std::string> table_rows(const std::string& markdown, const std::string& heading) {
  std::vector<std::string> rows;
  std::istringstream lines(markdown);
  std::string line;
  bool in_section = false;
  int table_lines = 0;
  while (std::getline(lines, line)) {
    if (line.starts_with("## ")) {
      if (in_section) break;
      in_section = line == heading;
      continue;
    }
    if (!in_section) continue;
    if (!line.starts_with("|")) {
      if (table_lines > 0) break;
      continue;
    }
    if (++table_lines > 2) rows.push_back(line);
  }
  return rows;
}

template <typename Column>
std::string documented_row(const Column& column) {
  return "| `" + std::string(column.name) + "` | " + std::string(column.unit) + " | " +
         std::string(column.meaning) + " |";
}

std::string metrics_md() {
  std::ifstream in(source_dir() + "/docs/metrics.md");
  REQUIRE(in);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

TEST_CASE("docs/metrics.md lists jobs.csv's and attempts.csv's columns from their tables",
          "[workflows]") {
  const std::string markdown = metrics_md();
  std::vector<std::string> job_rows;
  for (const JobColumn& column : job_columns()) job_rows.push_back(documented_row(column));
  CHECK(table_rows(markdown, "## jobs.csv") == job_rows);
  std::vector<std::string> attempt_rows;
  for (const AttemptColumn& column : attempt_columns())
    attempt_rows.push_back(documented_row(column));
  CHECK(table_rows(markdown, "## attempts.csv") == attempt_rows);
}

TEST_CASE("the headers of jobs.csv and attempts.csv follow their tables", "[workflows]") {
  CHECK(job_csv_header(false) ==
        "job_id,submission_time,requested_number_of_resources,requested_time,starting_time,"
        "execution_time,finish_time,waiting_time,turnaround_time,stretch,allocated_resources,"
        "consumed_energy,final_state,bounded_slowdown,restarts,user,priority,preemptions,"
        "lost_gpu_seconds,status,tenant,gpu_type,queued_time\n");
  CHECK(job_csv_header(true) == job_csv_header(false).substr(0, job_csv_header(false).size() - 1) +
                                    ",slowdown_factor,nodes,failures\n");
  CHECK(attempt_csv_header() ==
        "job_id,attempt,start_time,end_time,gpus,allocated_resources,nodes,end_reason\n");
  for (const JobColumn& column : job_columns()) {
    INFO(column.name);
    CHECK_FALSE(column.meaning.empty());
    CHECK(column.write != nullptr);
  }
}
