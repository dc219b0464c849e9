// Error and warning lines on stderr (src/cli/stderr_lines.hpp): values echoed from input never
// reach the terminal as control characters, and one error is exactly one line.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>

#include <fmt/format.h>

#include "schedlab/printable.hpp"
#include "support/builders.hpp"
#include "workflows/fixtures.hpp"

using namespace schedlab;
using namespace schedlab::testing;

namespace {

std::size_t lines_of(const std::string& text) {
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

bool has_raw_control(const std::string& text) {
  // Every byte below 0x20 but the line end, DEL, and the C1 controls as UTF-8 (C2 80..C2 9F).
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto byte = static_cast<unsigned char>(text[i]);
    if ((byte < 0x20 && byte != '\n') || byte == 0x7f) return true;
    if (byte == 0xc2 && i + 1 < text.size() && static_cast<unsigned char>(text[i + 1]) <= 0x9f)
      return true;
  }
  return false;
}

}  // namespace

TEST_CASE("printable_text escapes control characters and invalid UTF-8 only", "[errors]") {
  CHECK(printable_text("plain id-1, é, 漢字, 😀") == "plain id-1, é, 漢字, 😀");
  CHECK(printable_text("a\nb\rc\td") == "a\\nb\\rc\\td");
  CHECK(printable_text("\x1b[2J") == "\\x1b[2J");
  CHECK(printable_text(std::string("nul\0end", 7)) == "nul\\x00end");
  CHECK(printable_text("del\x7f") == "del\\x7f");
  CHECK(printable_text("c1\xc2\x9b"
                       "31m") == "c1\\xc2\\x9b31m");                    // U+009B, the 8-bit CSI
  CHECK(printable_text("\xc2\xa0") == "\xc2\xa0");                      // U+00A0 is no control
  CHECK(printable_text("bad\xff\xc3") == "bad\\xff\\xc3");              // invalid, truncated
  CHECK(printable_text("\xc0\xaf") == "\\xc0\\xaf");                    // overlong '/'
  CHECK(printable_text("\xed\xa0\x80") == "\\xed\\xa0\\x80");           // a UTF-16 surrogate
  CHECK(printable_text("\xf4\x90\x80\x80") == "\\xf4\\x90\\x80\\x80");  // above U+10FFFF
  const std::string once = printable_text("x\n\x1b\xff");
  CHECK(printable_text(once) == once);
}

TEST_CASE("markup_escape writes entities, keeps tab and newlines, escapes other controls",
          "[errors]") {
  CHECK(markup_escape("a<b>&\"c\" 'd' é") == "a&lt;b&gt;&amp;&quot;c&quot; &#39;d&#39; é");
  CHECK(markup_escape("line\nnext\tcell\r") == "line\nnext\tcell\r");
  CHECK(markup_escape("\x1b[2J\x01") == "\\x1b[2J\\x01");
  CHECK(markup_escape("bad\xff<") == "bad\\xff&lt;");
  CHECK(markup_escape("") == "");
  CHECK(markup_escape("\n") == "\n");
}

TEST_CASE("a trace id with a newline and ESC is echoed as one escaped error line", "[errors]") {
  const std::string dir = fresh_temp_dir("error-lines");
  const std::string trace = dir + "/t.csv";
  // The id is CSV-quoted: it holds a newline that would start a forged line, and ESC [2J
  // (clear the screen); the second row repeats it, so the error echoes it.
  const std::string hostile = "a\nschedlab: forged line\x1b[2J";
  std::ofstream(trace, std::ios::binary) << "id,submit_time,gpus,duration\n\"" << hostile
                                         << "\",0,1,10\n\"" << hostile << "\",5,1,10\n";
  const CommandResult run = run_command(fmt::format("{} run -q -p fifo -t {} -c 1x4:V100 -o {}",
                                                    shell_quote(schedlab_binary()),
                                                    shell_quote(trace), shell_quote(dir + "/out")));
  INFO(run.err);
  CHECK(run.exit_code == 2);
  CHECK(lines_of(run.err) == 1);
  CHECK_FALSE(has_raw_control(run.err));
  CHECK_THAT(run.err, Catch::Contains("duplicate id 'a\\nschedlab: forged line\\x1b[2J'"));

  // A bad field of that job echoes a value with ESC and a C1 control the same way.
  std::ofstream(trace, std::ios::binary)
      << "id,submit_time,gpus,duration\nj1,0,\"4\x1b]0;title\x07\xc2\x9b\",10\n";
  const CommandResult field = run_command(
      fmt::format("{} run -q -p fifo -t {} -c 1x4:V100 -o {}", shell_quote(schedlab_binary()),
                  shell_quote(trace), shell_quote(dir + "/out")));
  INFO(field.err);
  CHECK(field.exit_code == 2);
  CHECK(lines_of(field.err) == 1);
  CHECK_FALSE(has_raw_control(field.err));
  CHECK_THAT(field.err, Catch::Contains("4\\x1b]0;title\\x07\\xc2\\x9b"));

  // Values echoed by the command-line parser and by the policy lookup are escaped too.
  for (const char* args : {"-p fifo \"$(printf '%b' '--no-such-option-\\n-\\033[2J')\"",
                           "-p \"$(printf '%b' 'fi\\nfo\\033[2J')\""}) {
    INFO(args);
    const CommandResult option = run_command(
        fmt::format("{} run -q -t {} -c 1x4:V100 -o {} {}", shell_quote(schedlab_binary()),
                    shell_quote(trace), shell_quote(dir + "/out"), args));
    INFO(option.err);
    CHECK(option.exit_code == 2);
    CHECK(lines_of(option.err) == 1);
    CHECK_FALSE(has_raw_control(option.err));
  }
  CHECK_FALSE(std::filesystem::exists(dir + "/out"));
}

TEST_CASE("a warning that echoes a column name with control characters is one line", "[errors]") {
  const std::string dir = fresh_temp_dir("warning-lines");
  const std::string trace = dir + "/t.csv";
  std::ofstream(trace, std::ios::binary)
      << "id,submit_time,gpus,duration,\"x\nschedlab: forged\x1b[2J\"\nj1,0,1,10,1\n";
  // run logs through the single-threaded logger, sweep through the thread-safe one.
  for (const char* command : {"run -q -p fifo", "sweep -q -p fifo"}) {
    INFO(command);
    const CommandResult done = run_command(
        fmt::format("{} {} -t {} -c 1x4:V100 -o {}", shell_quote(schedlab_binary()), command,
                    shell_quote(trace), shell_quote(fmt::format("{}/out-{}", dir, command[0]))));
    INFO(done.err);
    CHECK(done.exit_code == 0);
    CHECK(lines_of(done.err) == 1);
    CHECK_FALSE(has_raw_control(done.err));
    CHECK_THAT(done.err, Catch::StartsWith("schedlab: warning: ") &&
                             Catch::Contains("x\\nschedlab: forged\\x1b[2J"));
  }
}

TEST_CASE("notes that echo a file name print it escaped", "[errors]") {
  const std::string dir = fresh_temp_dir("note-lines");
  // An SWF trace under a name with a newline and ESC: auto-detection and the skipped jobs each
  // print a note naming the file, and convert names the file it wrote.
  const std::string trace = dir + "/a\nschedlab: forged\x1b[2J.swf.gz";
  std::filesystem::copy_file(
      std::string(SCHEDLAB_SOURCE_DIR) + "/traces/nasa-ipsc-1993-week1.swf.gz", trace);
  const std::string converted = dir + "/b\x1b[2J.csv";
  for (const std::string& command :
       {fmt::format("run -q -p fifo -c 8x8:V100 -t {}", shell_quote(trace)),
        fmt::format("convert {} --to native -o {}", shell_quote(trace), shell_quote(converted))}) {
    INFO(command);
    const CommandResult done =
        run_command(fmt::format("{} {}", shell_quote(schedlab_binary()), command));
    INFO(done.err);
    CHECK(done.exit_code == 0);
    CHECK_FALSE(has_raw_control(done.err));
    CHECK_THAT(done.err, Catch::Contains("a\\nschedlab: forged\\x1b[2J.swf.gz"));
  }
}
