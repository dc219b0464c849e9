// Golden test: an exact command line on a small trace; every output compared byte for byte.
// To accept a reviewed change of behaviour, rerun with SCHEDLAB_UPDATE_GOLDEN=1 and commit the
// diff of tests/golden/fifo-small/.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "support/builders.hpp"

using namespace schedlab::testing;

TEST_CASE("golden: fifo on tests/golden/small.csv, outputs byte for byte", "[golden][cli]") {
  const std::string source = SCHEDLAB_SOURCE_DIR;
  const std::string out_dir = fresh_temp_dir("golden");
  const std::string command = std::string(SCHEDLAB_BINARY) +
                              " run --trace tests/golden/small.csv --cluster 4x8:A100,1x8:H100 "
                              "--policy fifo --interval 600 --reproducible --out " +
                              out_dir;
  const auto result = run_command("cd " + source + " && " + command);
  REQUIRE(result.exit_code == 0);
  CHECK(result.err.empty());
  const std::string expected_dir = source + "/tests/golden/fifo-small";
  const bool update = std::getenv("SCHEDLAB_UPDATE_GOLDEN") != nullptr;
  for (const char* name : {"summary.json", "jobs.csv", "attempts.csv", "timeseries.csv"}) {
    const std::string actual = read_text(out_dir + "/" + name);
    if (update) std::ofstream(expected_dir + "/" + name, std::ios::binary) << actual;
    INFO(name);
    CHECK(actual == read_text(expected_dir + "/" + name));
  }
  // The table on stdout is the same run's summary.
  CHECK(result.out.find("schedlab: policy fifo on tests/golden/small.csv") == 0);
}

TEST_CASE("determinism: two runs give byte-identical outputs", "[golden][cli][determinism]") {
  const std::string source = SCHEDLAB_SOURCE_DIR;
  std::string outputs[2];
  for (auto& output : outputs) {
    const std::string dir = fresh_temp_dir("determinism");
    const auto result = run_command("cd " + source + " && " + SCHEDLAB_BINARY +
                                    " run --trace traces/philly-6214e9.csv --cluster 32x8:V100 "
                                    "--reproducible --json --out " +
                                    dir);
    REQUIRE(result.exit_code == 0);
    for (const char* name : {"summary.json", "jobs.csv", "timeseries.csv"})
      output += read_text(dir + "/" + name);
    output += result.out;
  }
  CHECK(outputs[0].size() > 100'000);
  CHECK(outputs[0] == outputs[1]);
}
