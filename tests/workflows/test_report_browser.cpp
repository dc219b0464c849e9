// Opens a sweep report in headless Chromium: every chart must have rendered data and no tick
// labels may overlap (the page's own check writes its counts on <body>), and a screenshot is
// saved for inspection.
// Skips with a message when no Chromium is installed (scripts/install-deps installs it).
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>

#include <catch2/catch.hpp>

#include "schedlab/csv.hpp"
#include "schedlab/output.hpp"
#include "schedlab/report.hpp"
#include "schedlab/sweep.hpp"
#include "support/builders.hpp"
#include "workflows/fixtures.hpp"

using namespace schedlab;
using namespace schedlab::testing;
namespace fs = std::filesystem;

namespace {

std::string find_chromium() {
  if (const char* env = std::getenv("SCHEDLAB_CHROMIUM"); env && *env) return env;
  for (const char* name :
       {"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"}) {
    const auto found = run_command(std::string("command -v ") + name);
    if (found.exit_code == 0 && !found.out.empty())
      return std::string(trim(found.out.substr(0, found.out.find('\n'))));
  }
  return "";
}

std::string chromium_command(const std::string& chromium, const std::string& profile) {
  return "timeout 90 " + shell_quote(chromium) +
         " --headless --no-sandbox --disable-gpu --disable-quic --no-first-run "
         "--disable-background-networking"
         " --disable-component-update --disable-sync --disable-dev-shm-usage --hide-scrollbars"
         " --user-data-dir=" +
         shell_quote(profile);
}

std::string body_attribute(const std::string& dom, const std::string& name) {
  const std::regex pattern(name + "=\"([0-9]+)\"");
  std::smatch match;
  if (!std::regex_search(dom, match, pattern)) return "";
  return match[1].str();
}

std::uint32_t big_endian(const std::string& bytes, std::size_t at) {
  std::uint32_t value = 0;
  for (std::size_t i = 0; i < 4; ++i)
    value = (value << 8) | static_cast<unsigned char>(bytes[at + i]);
  return value;
}

}  // namespace

TEST_CASE("the report renders every chart in headless Chromium", "[workflows][report][browser]") {
  const std::string chromium = find_chromium();
  if (chromium.empty()) {
    WARN(
        "SKIPPED: no chromium found (install it with scripts/install-deps, or set "
        "SCHEDLAB_CHROMIUM)");
    return;
  }
  const std::string dir = fresh_temp_dir("report-browser");
  const std::string trace_path = write_small_trace(dir);
  auto spec_json = small_sweep_spec(trace_path);
  spec_json["seeds"] = {1, 2, 3};
  SweepRunOptions options;
  options.out_dir = dir + "/sweep";
  options.jobs = 2;
  run_sweep(parse_sweep_spec(spec_json, "spec.json"), options);
  const Report report = build_report({options.out_dir});
  REQUIRE(report.charts == 26);
  const std::string html_path = dir + "/report.html";
  write_files_atomically(dir, {{"report.html", report.html}});

  // One launch: the DOM after the page's script ran on stdout, and a screenshot kept next to the
  // test binary's build tree for inspection.
  const fs::path artifacts = fs::path(schedlab_binary()).parent_path() / "test-artifacts";
  fs::create_directories(artifacts);
  const std::string png = (artifacts / "report-sweep.png").string();
  fs::remove(png);
  const auto dom = run_command(chromium_command(chromium, dir + "/profile") +
                               " --window-size=1280,2400 --screenshot=" + shell_quote(png) +
                               " --dump-dom " + shell_quote("file://" + html_path));
  INFO("chromium stderr: " << dom.err.substr(0, 2000));
  REQUIRE(dom.exit_code == 0);
  CHECK(body_attribute(dom.out, "data-charts-total") == std::to_string(report.charts));
  CHECK(body_attribute(dom.out, "data-charts-rendered") == std::to_string(report.charts));
  CHECK(count_of(dom.out, "data-rendered=\"yes\"") == report.charts);
  // No two tick labels of a chart overlap as laid out by the browser's fonts.
  CHECK(body_attribute(dom.out, "data-tick-overlaps") == "0");

  const std::string bytes = read_text(png);
  REQUIRE(bytes.size() > 24);
  CHECK(bytes.substr(0, 8) == "\x89PNG\r\n\x1a\n");
  CHECK(big_endian(bytes, 16) == 1280);  // IHDR width
  CHECK(big_endian(bytes, 20) == 2400);  // IHDR height
  CHECK(bytes.size() > 50'000);          // a blank page compresses to a few kB
  WARN("report screenshot: " << png);
  fs::remove_all(dir);
}
