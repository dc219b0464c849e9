// schedlab inflate: the FGD paper's workload-inflation experiment on a node list and a pod list,
// for each GPU-sharing placement over seeds: inflate.csv, inflate.md and inflate.html
// (docs/gpu-sharing.md).
#include <cstdio>
#include <memory>
#include <set>
#include <string>

#include <fmt/format.h>

#include "commands.hpp"
#include "schedlab/csv.hpp"
#include "schedlab/error.hpp"
#include "schedlab/inflate.hpp"
#include "schedlab/inflate_report.hpp"
#include "schedlab/output.hpp"
#include "schedlab/sharing_inputs.hpp"

namespace schedlab::cli {

namespace {

struct InflateArgs {
  std::string nodes_file;
  std::string pods_file;
  std::string out_dir;
  std::vector<std::string> placements;
  std::vector<std::string> seeds;
  double inflation = 1.3;
  double coverage = 0.95;
  bool quiet = false;
};

// "42", "42-51"; each seed once.
std::vector<std::uint64_t> seed_list(const std::vector<std::string>& items) {
  std::vector<std::uint64_t> seeds;
  std::set<std::uint64_t> seen;
  for (const auto& item : items) {
    const auto dash = item.find('-', 1);
    const auto first = parse_int(item.substr(0, dash));
    const auto last = dash == std::string::npos ? first : parse_int(item.substr(dash + 1));
    if (!first || !last || *first < 0 || *last < *first || *last - *first >= 1000)
      throw ConfigError(fmt::format(
          "--seeds: expected a seed >= 0 or a range A-B of at most 1000 seeds, got '{}'", item));
    for (auto s = *first; s <= *last; ++s)
      if (!seen.insert(static_cast<std::uint64_t>(s)).second)
        throw ConfigError(fmt::format("--seeds: seed {} appears twice", s));
      else
        seeds.push_back(static_cast<std::uint64_t>(s));
  }
  return seeds;
}

std::string standings_text(const InflateResult& result) {
  std::string out = fmt::format("{:>4}  {:<14}  {:>24}  {:>13}\n", "rank", "placement",
                                "unallocated GPUs at 100%", "unallocated %");
  for (const auto& s : inflate_standings(result)) {
    const double mean = s.unallocated_gpus.mean;
    out +=
        fmt::format("{:>4}  {:<14}  {:>24}  {:>13}\n", s.rank, shared_placement_name(s.placement),
                    fixed(mean, 1), fixed(100.0 * mean / static_cast<double>(result.gpus), 2));
  }
  return out;
}

}  // namespace

Action add_inflate_command(CLI::App& app) {
  auto a = std::make_shared<InflateArgs>();
  CLI::App* cmd = app.add_subcommand(
      "inflate",
      "the FGD paper's workload-inflation experiment: GPU-sharing placements on a node list and "
      "a pod list, over seeds; writes inflate.csv, inflate.md and inflate.html");
  cmd->add_option("--nodes", a->nodes_file,
                  "node list: sn, cpu_milli, memory_mib, gpu, model (openb's node list)")
      ->required();
  cmd->add_option("--pods", a->pods_file,
                  "pod list: name, cpu_milli, memory_mib, num_gpu, gpu_milli, gpu_spec (openb's "
                  "pod list, gzip or plain)")
      ->required();
  cmd->add_option("-o,--out", a->out_dir, "output directory")
      ->required()
      ->check(non_empty_output_path());
  cmd->add_option("--placements", a->placements,
                  "placements to compare (default: random-fit, best-fit, dot-product, "
                  "gpu-packing, gpu-clustering, fgd)")
      ->delimiter(',');
  cmd->add_option("--seeds", a->seeds, "seeds, e.g. 1,2,3 or 42-51 (default 42-51)")
      ->delimiter(',');
  cmd->add_option("--inflation", a->inflation,
                  "stop when the arrived pods ask for this multiple of the GPUs (default 1.3)");
  cmd->add_option("--coverage", a->coverage,
                  "share of the pods the fragmentation measure's task mix covers (default 0.95)");
  cmd->add_flag("-q,--quiet", a->quiet, "no progress on stderr");
  return [cmd, a]() -> int {
    if (!cmd->parsed()) return -1;
    InflateOptions options;
    options.inflation = a->inflation;
    options.coverage = a->coverage;
    if (!a->placements.empty()) {
      options.placements.clear();
      for (const auto& name : a->placements) {
        const auto kind = parse_shared_placement(name);
        if (std::find(options.placements.begin(), options.placements.end(), kind) !=
            options.placements.end())
          throw ConfigError(fmt::format("--placements: '{}' appears twice", name));
        options.placements.push_back(kind);
      }
    }
    if (!a->seeds.empty()) options.seeds = seed_list(a->seeds);
    const SharedCluster cluster = read_shared_nodes(a->nodes_file);
    const std::vector<SharedTask> tasks = read_shared_tasks(a->pods_file, cluster);
    const OutputDirLock lock(a->out_dir);  // inputs checked: the directory is ours until the end
    const bool quiet = a->quiet;
    InflateResult result = run_inflate(cluster, tasks, options, [quiet](const InflateReplicate& r) {
      if (quiet) return;
      std::fprintf(stderr, "inflate: %s seed %llu: %llu pods unplaced at 100%% (%.2f s)\n",
                   shared_placement_name(r.placement), static_cast<unsigned long long>(r.seed),
                   static_cast<unsigned long long>(point_at(r, 100).tasks_unplaced), r.seconds);
      std::fflush(stderr);
    });
    result.tasks_source = a->pods_file;
    const auto outputs = inflate_outputs(result);
    std::vector<std::pair<std::string, std::string_view>> files(outputs.begin(), outputs.end());
    write_files_atomically(a->out_dir, files);
    const std::string table = standings_text(result);
    std::fwrite(table.data(), 1, table.size(), stdout);
    std::printf("inflate: %zu replicates; results in %s/inflate.md\n", result.replicates.size(),
                a->out_dir.c_str());
    return kExitOk;
  };
}

}  // namespace schedlab::cli
