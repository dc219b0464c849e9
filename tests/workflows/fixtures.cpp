#include "workflows/fixtures.hpp"

#include <filesystem>
#include <fstream>
#include <regex>

#include <fmt/format.h>

#include "schedlab/error.hpp"
#include "schedlab/output.hpp"
#include "support/builders.hpp"

// The chart layer is internal to the library.
#include "schedlab/report_svg.hpp"

namespace schedlab::testing {

std::string small_trace_csv() {
  std::string csv = "id,submit_time,gpus,duration\n";
  const int gpus[] = {1, 2, 4, 8, 1, 1, 2, 4};
  for (int i = 0; i < 40; ++i)
    csv += fmt::format("j{},{},{},{}\n", i, i * 60, gpus[i % 8], ((i * 37) % 11 + 1) * 600);
  return csv;
}

std::string write_run(const std::string& dir, const Trace& trace, const std::string& cluster) {
  const SimulationResult result = run_checked(trace, cluster);
  const std::string summary = result.summary.dump(2) + "\n";
  write_files_atomically(dir, {{"summary.json", summary},
                               {"jobs.csv", result.jobs_csv},
                               {"attempts.csv", result.attempts_csv},
                               {"timeseries.csv", result.timeseries_csv}});
  return dir;
}

std::string chart_named(const std::string& html, const std::string& title) {
  const std::size_t at = html.find("aria-label=\"" + markup_escape(title) + "\"");
  if (at == std::string::npos) return "";
  const std::size_t begin = html.rfind("<svg class=\"chart\"", at);
  return html.substr(begin, html.find("</svg>", at) - begin);
}

std::vector<std::vector<std::string>> matches(const std::string& text, const std::string& pattern) {
  std::vector<std::vector<std::string>> out;
  const std::regex re(pattern);
  for (auto it = std::sregex_iterator(text.begin(), text.end(), re); it != std::sregex_iterator();
       ++it) {
    std::vector<std::string> groups;
    for (std::size_t g = 1; g < it->size(); ++g) groups.push_back((*it)[g].str());
    out.push_back(std::move(groups));
  }
  return out;
}

std::string error_of(const std::vector<std::string>& inputs, const ReportOptions& options) {
  try {
    build_report(inputs, options);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "(no error)";
}

std::string write_small_trace(const std::string& dir) {
  const std::string path = dir + "/small.csv";
  std::ofstream(path, std::ios::binary) << small_trace_csv();
  return path;
}

nlohmann::ordered_json small_sweep_spec(const std::string& trace_path) {
  return nlohmann::ordered_json{
      {"policies",
       {{{"name", "fifo"}, {"label", "fifo-a"}}, {{"name", "fifo"}, {"label", "fifo-b"}}}},
      {"traces", {trace_path}},
      {"clusters", {kSmallCluster}},
      {"load_scales", {1, 2}},
      {"seeds", {1, 2}},
      {"reproducible", true}};
}

std::string shell_quote(const std::string& text) {
  std::string out = "'";
  for (const char c : text) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
}

std::string schedlab_binary() {
  return SCHEDLAB_BINARY;
}
std::string source_dir() {
  return SCHEDLAB_SOURCE_DIR;
}

std::size_t count_of(const std::string& text, const std::string& needle) {
  std::size_t count = 0;
  for (std::size_t at = text.find(needle); at != std::string::npos;
       at = text.find(needle, at + needle.size()))
    ++count;
  return count;
}

std::map<std::string, std::string> tree_of(const std::string& dir) {
  namespace fs = std::filesystem;
  std::map<std::string, std::string> files;
  for (const auto& entry : fs::recursive_directory_iterator(dir))
    if (entry.is_regular_file())
      files[fs::relative(entry.path(), dir).string()] = read_text(entry.path().string());
  return files;
}

}  // namespace schedlab::testing
