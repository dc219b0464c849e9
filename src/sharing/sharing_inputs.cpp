#include "schedlab/sharing_inputs.hpp"

#include <fmt/format.h>

#include "schedlab/error.hpp"
#include "schedlab/reader_kit.hpp"
#include "schedlab/trace.hpp"

namespace schedlab {

namespace {

// The largest CPU (milli) and memory (MiB) a node or task may state: 2^40, far above any
// machine, so sums over a cluster stay exact.
constexpr std::int64_t kMaxCpuMilli = std::int64_t{1} << 40;
constexpr std::int64_t kMaxMemoryMib = std::int64_t{1} << 40;
constexpr std::int64_t kMaxGpusPerSharedNode = 64;

std::vector<std::string_view> split_types(std::string_view spec) {
  std::vector<std::string_view> names;
  std::size_t start = 0;
  while (true) {
    const std::size_t bar = spec.find('|', start);
    names.push_back(spec.substr(start, bar == std::string_view::npos ? bar : bar - start));
    if (bar == std::string_view::npos) return names;
    start = bar + 1;
  }
}

std::string known_types(const SharedCluster& cluster) {
  std::string known;
  for (const auto& name : cluster.gpu_types) {
    if (!known.empty()) known += ", ";
    known += name;
  }
  return known;
}

}  // namespace

SharedCluster read_shared_nodes(const std::string& path) {
  enum Column : std::size_t { kName, kCpu, kMemory, kGpu, kModel };
  static constexpr trace_kit::ColumnSpec kColumns[] = {
      {"sn", true}, {"cpu_milli", true}, {"memory_mib", true}, {"gpu", true}, {"model", false}};
  const std::string text = read_file_bytes(path);
  trace_kit::HeaderedCsv csv(path, text, kColumns);
  const trace_kit::RowParser& row = csv.row();
  SharedCluster cluster;
  cluster.source = path;
  while (csv.next()) {
    SharedNode node;
    node.name = std::string(row.text(kName));
    if (node.name.empty()) row.fail(kName, "a node name");
    node.cpu_milli = row.integer(kCpu, 0, kMaxCpuMilli, "CPU milli in 0..2^40");
    node.memory_mib = row.integer(kMemory, 0, kMaxMemoryMib, "memory MiB in 0..2^40");
    node.cpu_milli_free = node.cpu_milli;
    node.memory_mib_free = node.memory_mib;
    const auto gpus = row.integer(kGpu, 0, kMaxGpusPerSharedNode, "an integer in 0..64");
    if (gpus > 0) {
      if (row.missing(kModel)) row.fail(kModel, "a GPU model for a node with GPUs");
      const std::string model(row.text(kModel));
      node.gpu_type = cluster.gpu_type_index(model);
      if (node.gpu_type == kNoGpuType) {
        if (cluster.gpu_types.size() == kMaxSharedGpuTypes)
          row.fail(kModel, fmt::format("at most {} GPU models", kMaxSharedGpuTypes));
        node.gpu_type = static_cast<int>(cluster.gpu_types.size());
        cluster.gpu_types.push_back(model);
      }
      node.gpu_milli_free.assign(static_cast<std::size_t>(gpus), kMilliPerGpu);
    }
    cluster.nodes.push_back(std::move(node));
  }
  if (cluster.gpu_count() == 0) throw TraceError(path, "no node has GPUs");
  return cluster;
}

std::vector<SharedTask> read_shared_tasks(const std::string& path, const SharedCluster& cluster) {
  enum Column : std::size_t { kName, kCpu, kMemory, kNumGpu, kGpuMilli, kGpuSpec };
  static constexpr trace_kit::ColumnSpec kColumns[] = {{"name", true},       {"cpu_milli", true},
                                                       {"memory_mib", true}, {"num_gpu", true},
                                                       {"gpu_milli", false}, {"gpu_spec", false}};
  const std::string text = read_file_bytes(path);
  trace_kit::HeaderedCsv csv(path, text, kColumns);
  const trace_kit::RowParser& row = csv.row();
  std::vector<SharedTask> tasks;
  tasks.reserve(trace_kit::count_lines(text));
  while (csv.next()) {
    SharedTask task;
    task.line = static_cast<std::uint32_t>(row.line());
    task.name = std::string(row.text(kName));
    if (task.name.empty()) row.fail(kName, "a non-empty pod name");
    task.cpu_milli = row.integer(kCpu, 0, kMaxCpuMilli, "CPU milli in 0..2^40");
    task.memory_mib = row.integer(kMemory, 0, kMaxMemoryMib, "memory MiB in 0..2^40");
    task.gpus =
        static_cast<int>(row.integer(kNumGpu, 0, kMaxGpusPerSharedNode, "an integer in 0..64"));
    const bool milli_given = !row.missing(kGpuMilli);
    if (task.gpus == 0) {
      if (milli_given) row.integer(kGpuMilli, 0, 0, "0 for a pod without GPUs");
    } else if (task.gpus == 1) {
      task.gpu_milli =
          milli_given
              ? static_cast<int>(row.integer(kGpuMilli, 1, kMilliPerGpu, "an integer in 1..1000"))
              : kMilliPerGpu;
    } else {
      task.gpu_milli = kMilliPerGpu;
      if (milli_given)
        row.integer(kGpuMilli, kMilliPerGpu, kMilliPerGpu, "1000 for a pod of several GPUs");
    }
    if (task.gpus > 0 && !row.missing(kGpuSpec)) {
      for (const std::string_view name : split_types(row.text(kGpuSpec))) {
        const int type = cluster.gpu_type_index(std::string(name));
        if (type != kNoGpuType) task.gpu_type_mask |= std::uint64_t{1} << type;
      }
      if (task.gpu_type_mask == 0)
        row.fail(kGpuSpec, fmt::format("a GPU model of the nodes ({})", known_types(cluster)));
    }
    tasks.push_back(std::move(task));
  }
  if (tasks.empty()) throw TraceError(path, "no pods");
  return tasks;
}

}  // namespace schedlab
