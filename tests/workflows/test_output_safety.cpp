// Output writing under hostile conditions: special files and symlinks as outputs, a file size
// limit, stale temporaries, two writers of one directory, empty -o paths, failed cells'
// records, and names that are not markup in Markdown and HTML outputs.
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <catch2/catch.hpp>

#include "schedlab/error.hpp"
#include "schedlab/output.hpp"
#include "schedlab/sweep_steps.hpp"
#include "schedlab/text_page.hpp"
#include "support/builders.hpp"
#include "workflows/fixtures.hpp"

using namespace schedlab;
using namespace schedlab::testing;
namespace fs = std::filesystem;

namespace {

std::string quoted(const std::string& path) {
  return shell_quote(path);
}

std::string schedlab_cmd(const std::string& args) {
  return schedlab_binary() + " " + args;
}

// Exactly one line on stderr.
bool one_line(const std::string& err) {
  return !err.empty() && err.back() == '\n' && count_of(err, "\n") == 1;
}

// Names in `dir` (not below) that look like schedlab temporaries.
std::vector<std::string> temporaries_in(const std::string& dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& entry : fs::recursive_directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.find(".tmp.") != std::string::npos) names.push_back(entry.path().string());
  }
  return names;
}

bool is_char_device(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0 && S_ISCHR(st.st_mode);
}

std::string host_name() {
  std::string host(256, '\0');
  ::gethostname(host.data(), host.size() - 1);
  host.resize(std::strlen(host.c_str()));
  return host;
}

// A trace of `jobs` generated jobs, as a file in `dir`.
std::string generated_trace(const std::string& dir, int jobs) {
  const std::string path = dir + "/gen.csv";
  REQUIRE(run_command(schedlab_cmd(fmt::format("gen -n {} --seed 1 -o {}", jobs, quoted(path))))
              .exit_code == 0);
  return path;
}

}  // namespace

TEST_CASE("single-file outputs write through FIFOs and devices and follow symlinks",
          "[workflows][output]") {
  const std::string dir = fresh_temp_dir("output-special");
  const std::string trace = write_small_trace(dir);

  // A FIFO: written through while a reader reads it, and still a FIFO afterwards.
  const std::string fifo = dir + "/pipe";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  std::string received;
  std::thread reader([&] {
    std::ifstream in(fifo, std::ios::binary);
    received.assign(std::istreambuf_iterator<char>(in), {});
  });
  const CommandResult piped =
      run_command(schedlab_cmd("convert " + quoted(trace) + " --to native -o " + quoted(fifo)));
  // Unblocks the reader when the command never opened the FIFO.
  if (const int fd = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK); fd >= 0) ::close(fd);
  reader.join();
  CHECK(piped.exit_code == 0);
  struct stat st {};
  REQUIRE(::lstat(fifo.c_str(), &st) == 0);
  REQUIRE(S_ISFIFO(st.st_mode));  // a binary that renames over outputs stops here
  CHECK(received.starts_with("id,"));
  CHECK(temporaries_in(dir).empty());

  // /dev/null: written through, still the character device.
  REQUIRE(is_char_device("/dev/null"));
  const CommandResult to_null = run_command(schedlab_cmd("gen -n 5 --seed 1 -o /dev/null"));
  CHECK(to_null.exit_code == 0);
  REQUIRE(is_char_device("/dev/null"));
  CHECK(
      run_command(schedlab_cmd("convert " + quoted(trace) + " --to swf -o /dev/null")).exit_code ==
      0);
  REQUIRE(is_char_device("/dev/null"));

  // A symlink: its target is replaced, the link stays; a dangling one creates its target.
  const std::string target = dir + "/target.csv";
  std::ofstream(target) << "old\n";
  fs::create_symlink("target.csv", dir + "/link.csv");
  CHECK(run_command(schedlab_cmd("convert " + quoted(trace) + " --to native -o " +
                                 quoted(dir + "/link.csv")))
            .exit_code == 0);
  CHECK(fs::is_symlink(dir + "/link.csv"));
  CHECK(read_text(target).starts_with("id,"));
  fs::create_symlink("made.csv", dir + "/dangling.csv");
  CHECK(run_command(schedlab_cmd("gen -n 5 --seed 1 -o " + quoted(dir + "/dangling.csv")))
            .exit_code == 0);
  CHECK(fs::is_symlink(dir + "/dangling.csv"));
  CHECK(read_text(dir + "/made.csv").starts_with("id,"));

  // A directory given as a file output: refused, exit 2, one line naming it.
  fs::create_directories(dir + "/adir");
  const CommandResult to_dir =
      run_command(schedlab_cmd("gen -n 5 --seed 1 -o " + quoted(dir + "/adir")));
  CHECK(to_dir.exit_code == 2);
  CHECK(one_line(to_dir.err));
  CHECK_THAT(to_dir.err, Catch::Contains(dir + "/adir: is a directory"));
  CHECK(fs::is_directory(dir + "/adir"));

  // An output directory that is a file: refused, exit 2, the file untouched.
  const CommandResult not_dir =
      run_command(schedlab_cmd("run -q -t " + quoted(trace) + " -c 2x8:V100 -o " + quoted(target)));
  CHECK(not_dir.exit_code == 2);
  CHECK(one_line(not_dir.err));
  CHECK_THAT(not_dir.err, Catch::Contains(target + ": exists and is not a directory"));
  CHECK(read_text(target).starts_with("id,"));
  // An output directory that is a symlink to a directory: followed.
  fs::create_symlink("adir", dir + "/dirlink");
  CHECK(run_command(schedlab_cmd("run -q -t " + quoted(trace) + " -c 2x8:V100 -o " +
                                 quoted(dir + "/dirlink")))
            .exit_code == 0);
  CHECK(fs::is_regular_file(dir + "/adir/summary.json"));
  CHECK(fs::is_symlink(dir + "/dirlink"));
}

TEST_CASE("a write past the file size limit exits 5 and leaves no temporaries",
          "[workflows][output]") {
  const std::string dir = fresh_temp_dir("output-fsize");
  const std::string trace = generated_trace(dir, 400);
  // ulimit -f counts 1024-byte blocks: jobs.csv of 400 jobs is larger than 16 KiB.
  const std::string limited =
      "bash -c " + quoted("ulimit -f 16; exec " + schedlab_binary() + " run -q -t " + trace +
                          " -c 8x8:V100 -o " + dir + "/run");
  const CommandResult run = run_command(limited);
  CHECK(run.exit_code == 5);
  CHECK(one_line(run.err));
  CHECK_THAT(run.err, Catch::Contains(dir + "/run/") && Catch::Contains("File too large"));
  CHECK(temporaries_in(dir).empty());
  CHECK_FALSE(fs::exists(dir + "/run/" + kCompleteMarker));
  CHECK_FALSE(fs::exists(dir + "/run/" + kOutputLock));

  // A sweep whose cells cannot be written: their rows say "output error", and the exit is 5.
  const std::string sweep = "bash -c " + quoted("ulimit -f 16; exec " + schedlab_binary() +
                                                " sweep -q -p fifo -p sjf -t " + trace +
                                                " -c 8x8:V100 -o " + dir + "/sweep");
  const CommandResult swept = run_command(sweep);
  CHECK(swept.exit_code == 5);
  CHECK(one_line(swept.err));
  CHECK_THAT(swept.err, Catch::Contains("sweep cell 0 failed") &&
                            Catch::Contains("/cells/0000/jobs.csv: cannot write output file: "
                                            "File too large"));
  const std::string results = read_text(dir + "/sweep/results.csv");
  CHECK(count_of(results, "output error: ") == 2);
  CHECK(count_of(results, "internal error") == 0);
  CHECK(temporaries_in(dir).empty());
}

TEST_CASE("a failed cell's OutputError is recorded as an output error", "[workflows][output]") {
  const std::string text =
      sweep_failure_text(std::make_exception_ptr(OutputError("x/jobs.csv: cannot write")));
  CHECK(text == "output error: x/jobs.csv: cannot write");
}

TEST_CASE("a later writer removes stale temporaries of schedlab's naming only",
          "[workflows][output]") {
  const std::string dir = fresh_temp_dir("output-stale");
  const std::string trace = write_small_trace(dir);
  const std::string out = dir + "/run";
  fs::create_directories(out);
  for (const char* name : {".jobs.csv.tmp.99999", ".summary.json.tmp.1", ".keep.tmp.notapid",
                           "jobs.csv.tmp.7", ".notes.tmp."})
    std::ofstream(out + "/" + name) << "x";
  const CommandResult run =
      run_command(schedlab_cmd("run -q -t " + quoted(trace) + " -c 2x8:V100 -o " + quoted(out)));
  REQUIRE(run.exit_code == 0);
  CHECK_FALSE(fs::exists(out + "/.jobs.csv.tmp.99999"));
  CHECK_FALSE(fs::exists(out + "/.summary.json.tmp.1"));
  CHECK(fs::exists(out + "/.keep.tmp.notapid"));
  CHECK(fs::exists(out + "/jobs.csv.tmp.7"));
  CHECK(fs::exists(out + "/.notes.tmp."));
  CHECK(fs::exists(out + "/" + kCompleteMarker));
  CHECK_FALSE(fs::exists(out + "/" + kOutputLock));
}

TEST_CASE("a single-file output removes its own temporaries left by a dead writer",
          "[workflows][output]") {
  const std::string dir = fresh_temp_dir("output-stale-single");
  const std::string trace = write_small_trace(dir);
  // A pid that no process holds: a child that has exited and been reaped.
  const pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  REQUIRE(child > 0);
  ::waitpid(child, nullptr, 0);
  const std::string dead = fmt::format("{}/.out.csv.tmp.{}", dir, child);
  const std::string live = fmt::format("{}/.out.csv.tmp.{}", dir, ::getpid());
  const std::string other = fmt::format("{}/.other.csv.tmp.{}", dir, child);
  for (const std::string& path : {dead, live, other}) std::ofstream(path) << "x";
  const CommandResult converted = run_command(
      schedlab_cmd("convert " + quoted(trace) + " --to native -o " + quoted(dir + "/out.csv")));
  INFO(converted.err);
  REQUIRE(converted.exit_code == 0);
  CHECK(fs::is_regular_file(dir + "/out.csv"));
  CHECK_FALSE(fs::exists(dead));  // its writer is gone
  CHECK(fs::exists(live));        // a live process's temporary is not ours to remove
  CHECK(fs::exists(other));       // another file's temporary: not this command's
}

TEST_CASE("an output directory in use refuses a second writer", "[workflows][output]") {
  const std::string dir = fresh_temp_dir("output-lock");
  const std::string trace = write_small_trace(dir);
  const std::string out = dir + "/out";
  const std::string held_text = fmt::format("pid {} on host {}", ::getpid(), host_name());
  {
    const OutputDirLock held(out);
    CHECK(read_text(out + "/" + kOutputLock) == fmt::format("{} {}\n", ::getpid(), host_name()));
    const std::vector<std::string> writers = {
        "run -q -t " + quoted(trace) + " -c 2x8:V100 -o " + quoted(out),
        "sweep -q -p fifo -p sjf -t " + quoted(trace) + " -c 2x8:V100 -o " + quoted(out),
        "compare -q --policies fifo,sjf -t " + quoted(trace) + " -c 2x8:V100 -o " + quoted(out)};
    for (const std::string& command : writers) {
      const CommandResult second = run_command(schedlab_cmd(command));
      INFO(command);
      CHECK(second.exit_code == 2);
      CHECK(one_line(second.err));
      CHECK_THAT(second.err,
                 Catch::Contains(out + ": output directory in use by schedlab " + held_text));
    }
    CHECK_FALSE(fs::exists(out + "/summary.json"));
    CHECK_FALSE(fs::exists(out + "/results.csv"));
    // In-process too: a second lock of the same directory is refused.
    CHECK_THROWS_AS(OutputDirLock(out), ConfigError);
  }
  // A lock held by another program whose file holds control characters: echoed harmlessly.
  fs::create_directories(dir + "/other");
  std::ofstream(dir + "/other/" + kOutputLock) << "1\x1b[31m host\x07\n";
  const CommandResult odd = run_command(
      "flock " + quoted(dir + "/other/" + kOutputLock) + " " +
      schedlab_cmd("run -q -t " + quoted(trace) + " -c 2x8:V100 -o " + quoted(dir + "/other")));
  CHECK(odd.exit_code == 2);
  CHECK(one_line(odd.err));
  CHECK_THAT(odd.err, Catch::Contains("pid 1?[31m on host host?"));
  // Released: the lock file is gone, and a stale one left by a killed holder is no obstacle.
  CHECK_FALSE(fs::exists(out + "/" + kOutputLock));
  std::ofstream(out + "/" + kOutputLock) << "99999 elsewhere\n";
  CHECK(run_command(schedlab_cmd("run -q -t " + quoted(trace) + " -c 2x8:V100 -o " + quoted(out)))
            .exit_code == 0);
  CHECK(fs::exists(out + "/summary.json"));
  CHECK_FALSE(fs::exists(out + "/" + kOutputLock));
  // A lock that finds nothing to do leaves no directory it created behind.
  { const OutputDirLock fresh(dir + "/new/deeper"); }
  CHECK_FALSE(fs::exists(dir + "/new"));
}

TEST_CASE("an empty -o path is refused before anything runs", "[workflows][output]") {
  const std::string dir = fresh_temp_dir("output-empty");
  const std::string trace = write_small_trace(dir);
  const std::string t = quoted(trace);
  const std::vector<std::string> commands = {
      "run -q -t " + t + " -c 2x8:V100 -o ''",
      "sweep -q -p fifo -t " + t + " -c 2x8:V100 -o ''",
      "compare -q --policies fifo -t " + t + " -c 2x8:V100 -o ''",
      "convert " + t + " --to native -o ''",
      "gen -n 5 -o ''",
      "report " + t + " -o ''",
      "leaderboard suite.json -o ''",
      "inflate --nodes n.csv --pods p.csv -o ''",
      "run -q -t " + t + " -c 2x8:V100 --out=",
      "sweep --merge a b -o ''"};
  for (const std::string& args : commands) {
    const std::string work = fresh_temp_dir("output-empty-cwd");
    const CommandResult result = run_command("cd " + quoted(work) + " && " + schedlab_cmd(args));
    INFO(args);
    CHECK(result.exit_code == 2);
    CHECK(one_line(result.err));
    CHECK_THAT(result.err, Catch::Contains("--out"));
    if (args.ends_with("''")) CHECK_THAT(result.err, Catch::Contains("empty path"));
    CHECK(fs::is_empty(work));
  }
}

TEST_CASE("names are not markup in Markdown pages", "[workflows][output]") {
  Page page;
  page.title = "Leaderboard: <script>alert(1)</script>";
  page.heading(1, page.title + "\n<img src=x onerror=alert(1)>");
  page.paragraph("Suite `x`<b>bold</b>`: \"<\" worse, a < b");
  PageTable table;
  table.header = {"policy"};
  table.rows = {{"<script>x</script>\n# heading"}};
  page.table(table);
  const std::string md = render_markdown(page);
  CHECK(md.find("<script") == std::string::npos);
  CHECK(md.find("<img") == std::string::npos);
  CHECK(md.find("<b>") == std::string::npos);
  CHECK(md.find("</") == std::string::npos);
  CHECK_THAT(md, Catch::Contains("# Leaderboard: &lt;script>alert(1)&lt;/script> &lt;img"));
  CHECK_THAT(md, Catch::Contains("\"<\" worse, a < b"));  // a "<" that opens nothing stays
  CHECK_THAT(md, Catch::Contains("| &lt;script>x&lt;/script> # heading |"));
  const std::string html = render_html(page);
  CHECK(html.find("<script") == std::string::npos);
  CHECK(html.find("<img") == std::string::npos);
}

TEST_CASE("a leaderboard is one output set: marker, escaped names", "[workflows][output]") {
  const std::string dir = fresh_temp_dir("output-board");
  const std::string trace = write_small_trace(dir);
  const nlohmann::ordered_json suite{
      {"name", "<script>alert(1)</script>"},
      {"description", "<img src=x onerror=alert(1)>"},
      {"traces",
       nlohmann::ordered_json::array({{{"name", "a"}, {"path", trace}, {"cluster", "2x8:V100"}}})},
      {"policies", nlohmann::ordered_json::array({"fifo", "sjf"})},
      {"seeds", nlohmann::ordered_json::array({1})},
      {"metrics", nlohmann::ordered_json::array({"wait_s.mean"})}};
  std::ofstream(dir + "/suite.json") << suite.dump(2);
  const CommandResult board = run_command(
      schedlab_cmd("leaderboard -q " + quoted(dir + "/suite.json") + " -o " + quoted(dir + "/b")));
  REQUIRE(board.exit_code == 0);
  CHECK(read_text(dir + "/b/" + kCompleteMarker) ==
        "leaderboard.md\nleaderboard.csv\nleaderboard.html\n");
  const std::string md = read_text(dir + "/b/leaderboard.md");
  const std::string html = read_text(dir + "/b/leaderboard.html");
  for (const std::string* page : {&md, &html}) {
    CHECK(page->find("<script") == std::string::npos);
    CHECK(page->find("<img") == std::string::npos);
  }
  CHECK_THAT(md, Catch::Contains("&lt;script>alert(1)&lt;/script>"));
  CHECK_THAT(html, Catch::Contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
  CHECK_FALSE(fs::exists(dir + "/b/" + kOutputLock));
}

TEST_CASE("the HTML report escapes names taken from its inputs", "[workflows][output]") {
  const std::string dir = fresh_temp_dir("output-report-names");
  const std::string trace = write_small_trace(dir);
  const std::string run_dir = dir + "/<img src=x onerror=alert(1)>";
  REQUIRE(
      run_command(schedlab_cmd("run -q -t " + quoted(trace) + " -c 2x8:V100 -o " + quoted(run_dir)))
          .exit_code == 0);
  REQUIRE(
      run_command(schedlab_cmd("report " + quoted(run_dir) + " -o " + quoted(dir + "/report.html")))
          .exit_code == 0);
  const std::string html = read_text(dir + "/report.html");
  CHECK(html.find("<img") == std::string::npos);
  CHECK_THAT(html, Catch::Contains("&lt;img src=x onerror=alert(1)&gt;"));
}
