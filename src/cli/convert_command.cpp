// schedlab convert TRACE --to native|swf -o OUT: rewrites a trace in another format.
#include <cstdio>

#include <fmt/format.h>

#include "commands.hpp"
#include "schedlab/error.hpp"
#include "schedlab/printable.hpp"
#include "schedlab/trace_writer.hpp"

namespace schedlab::cli {

namespace {

struct ConvertArgs {
  std::string trace;
  std::string format = "auto";
  std::vector<std::string> filters;
  std::string to;
  std::string out;
};

void note(const std::string& path, std::uint64_t count, const char* what) {
  if (count > 0)
    std::fprintf(stderr, "schedlab: %s: %llu %s\n", printable_text(path).c_str(),
                 static_cast<unsigned long long>(count), what);
}

}  // namespace

Action add_convert_command(CLI::App& app) {
  auto args = std::make_shared<ConvertArgs>();
  CLI::App* cmd = app.add_subcommand("convert", "write a trace in the native format or as SWF");
  cmd->add_option("trace", args->trace,
                  "trace file or directory of trace files (.gz is read directly)")
      ->required();
  cmd->add_option("--format", args->format, "input format (auto decides from the content)")
      ->capture_default_str();
  cmd->add_option("--to", args->to, "output format: native | swf")->required();
  cmd->add_option("-o,--out", args->out, "output file (written atomically; .gz compresses)")
      ->required()
      ->check(non_empty_output_path());
  add_filter_option(*cmd, args->filters);
  return [cmd, args]() -> int {
    if (!cmd->parsed()) return -1;
    if (args->to != "native" && args->to != "swf")
      throw ConfigError(fmt::format("--to '{}': expected native or swf", args->to));
    const Trace trace = load_trace(args->trace, args->format, args->filters);
    std::string content;
    if (args->to == "native") {
      content = format_native_trace(trace);
    } else {
      SwfWriteReport report;
      content = format_swf_trace(trace, &report);
      note(args->out, report.times_rounded,
           "times rounded to whole seconds (SWF has no fractions)");
      note(args->out, report.runs_raised_to_1s, "run times under 0.5 s written as 1 s");
      if (report.jobs_renumbered)
        std::fprintf(stderr,
                     "schedlab: %s: ids are not 1..N in trace order; jobs numbered 1..N (SWF job "
                     "numbers count from 1)\n",
                     printable_text(args->out).c_str());
      note(args->out, report.users_mapped, "user names numbered (mapping in the header)");
      note(args->out, report.groups_mapped, "tenants numbered as groups (mapping in the header)");
      note(args->out, report.statuses_unmapped,
           "jobs with a status SWF has no code for (written -1)");
      note(args->out, report.fields_dropped,
           "jobs with priority, gpu_type, checkpoint or preemptible fields SWF cannot hold");
    }
    write_trace_file(args->out, content);
    std::fprintf(stderr, "schedlab: wrote %zu jobs to %s (%s)\n", trace.jobs.size(),
                 printable_text(args->out).c_str(), args->to.c_str());
    return kExitOk;
  };
}

}  // namespace schedlab::cli
