// "did you mean": suggestions for misspelled names, and names matched without regard to case
// and '_' / '-', on the command line and in the library.
#include <catch2/catch.hpp>

#include "schedlab/names.hpp"
#include "support/builders.hpp"

using namespace schedlab;
using namespace schedlab::testing;

TEST_CASE("closest_name suggests near names and nothing for far ones", "[names]") {
  const std::vector<std::string> policies = {"conservative-backfill", "easy-backfill", "fifo",
                                             "las", "sjf"};
  CHECK(closest_name("easy_backfill", policies) == "easy-backfill");
  CHECK(closest_name("EASY-BACKFILL", policies) == "easy-backfill");
  CHECK(closest_name("sfj", policies) == "sjf");     // neighbours swapped
  CHECK(closest_name("fifoo", policies) == "fifo");  // one extra
  CHECK(closest_name("easy-backfil", policies) == "easy-backfill");
  CHECK(closest_name("nope", policies) == std::nullopt);
  CHECK(closest_name("x", policies) == std::nullopt);
  CHECK(closest_name("", policies) == std::nullopt);
  CHECK(closest_name("rn", {"run", "report"}) == "run");
  CHECK(did_you_mean("sfj", policies) == "; did you mean 'sjf'?");
  CHECK(did_you_mean("zzzzzz", policies).empty());
  CHECK(same_name("Easy_Backfill", "easy-backfill"));
  CHECK(!same_name("easybackfill", "easy-backfill"));
}

TEST_CASE("the command line says what a typo meant", "[names][cli]") {
  const std::string bin = SCHEDLAB_BINARY;
  const std::string trace = std::string(SCHEDLAB_SOURCE_DIR) + "/traces/itp-cluster10.csv";
  const auto sub = run_command(bin + " rn -t " + trace);
  CHECK(sub.exit_code == 2);
  CHECK(sub.err.find("did you mean 'run'?") != std::string::npos);
  const auto option = run_command(bin + " run -t " + trace + " -c 2x8:A100 --placment pack");
  CHECK(option.exit_code == 2);
  CHECK(option.err.find("did you mean '--placement'?") != std::string::npos);
  const auto type = run_command(bin + " run -t " + trace + " -c 2x8:A10 -p fifo");
  CHECK(type.exit_code == 2);
  CHECK(type.err.find("unknown GPU type 'A10'; did you mean 'A100'?") != std::string::npos);
  const auto compare =
      run_command(bin + " compare -t " + trace + " -c 2x8:A100 --policies fifo,sfj");
  CHECK(compare.exit_code == 2);
  CHECK(compare.err.find("--policies: unknown policy 'sfj'; did you mean 'sjf'?") !=
        std::string::npos);
  // Case and '_' do not matter: the registered names are used in the outputs.
  const std::string out = fresh_temp_dir("names");
  const auto loose =
      run_command(bin + " run -t " + trace + " -c 2x8:a100 -p Easy_Backfill --json -o " + out);
  CHECK(loose.exit_code == 0);
  CHECK(loose.out.find("\"policy\": \"easy-backfill\"") != std::string::npos);
  CHECK(jobs_column(read_text(out + "/jobs.csv"), "gpu_type").front() == "A100");
}
