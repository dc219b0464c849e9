#include <algorithm>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "schedlab/csv.hpp"
#include "schedlab/error.hpp"
#include "schedlab/reader_kit.hpp"
#include "schedlab/trace.hpp"
#include "schedlab/trace_inventory.hpp"

namespace schedlab {

const std::vector<GpuType>& inventory_gpu_types() {
  // Busy = board power limit from the NVIDIA product briefs (T4 70 W, P100 PCIe 250 W, V100
  // SXM2 300 W, A10 150 W); idle = typical idle board draw. MISC (K40m/K80/M60 era) uses
  // per-GPU 150 W. G1-G3 are undisclosed: they stand in with the A100 figures.
  static const std::vector<GpuType> types = {
      {"T4", 10.0, 70.0},       {"P100", 30.0, 250.0}, {"V100M16", 45.0, 300.0},
      {"V100M32", 45.0, 300.0}, {"A10", 20.0, 150.0},  {"MISC", 25.0, 150.0},
      {"G1", 50.0, 400.0},      {"G2", 50.0, 400.0},   {"G3", 50.0, 400.0},
  };
  return types;
}

namespace {

void add_type(ClusterSpec& spec, const std::string& name) {
  for (const auto& t : spec.gpu_types)
    if (t.name == name) return;
  for (const auto& t : inventory_gpu_types()) {
    if (t.name == name) {
      spec.gpu_types.push_back(t);
      return;
    }
  }
  // Unknown model: the default type's power figures.
  GpuType type;
  for (const auto& t : builtin_gpu_types())
    if (t.name == kDefaultGpuType) type = t;
  type.name = name;
  spdlog::info("GPU type '{}' has no power figures; using those of {}", name, kDefaultGpuType);
  spec.gpu_types.push_back(type);
}

// Adds `count` nodes of (type, gpus) to the group of that shape, creating it at first sight.
// A node's CPU and memory, when the inventory has them, go to the group's per-node list.
void add_nodes(ClusterSpec& spec, const std::string& type, int gpus, std::uint32_t count,
               const std::string& rack, const NodeCapacity* capacity = nullptr) {
  for (auto& g : spec.groups) {
    if (g.gpu_type == type && g.gpus_per_node == gpus && g.rack == rack) {
      g.count += count;
      if (capacity != nullptr) g.node_capacities.insert(g.node_capacities.end(), count, *capacity);
      return;
    }
  }
  add_type(spec, type);
  spec.groups.push_back(NodeGroupSpec{count, gpus, type, rack});
  if (capacity != nullptr) spec.groups.back().node_capacities.assign(count, *capacity);
}

ClusterSpec finish(ClusterSpec spec, const std::string& path, std::uint64_t left_out,
                   const char* what) {
  if (spec.groups.empty())
    throw TraceError(path,
                     fmt::format("no GPU nodes in the inventory ({} {} left out)", left_out, what));
  if (left_out > 0) spdlog::info("{}: left out {} {}", path, left_out, what);
  return spec;
}

}  // namespace

ClusterSpec read_openb_node_list(const std::string& path) {
  enum Column : std::size_t { kName, kGpu, kModel, kCpu, kMemory };
  static constexpr trace_kit::ColumnSpec kColumns[] = {
      {"sn", true}, {"gpu", true}, {"model", true}, {"cpu_milli", false}, {"memory_mib", false}};
  const std::string text = read_file_bytes(path);
  trace_kit::HeaderedCsv csv(path, text, kColumns);
  const trace_kit::RowParser& row = csv.row();
  ClusterSpec spec;
  spec.gpu_types = builtin_gpu_types();
  spec.source = "alibaba-openb:" + path;
  std::uint64_t cpu_nodes = 0;
  while (csv.next()) {
    if (row.text(kName).empty()) row.fail(kName, "a node name");
    const auto gpus =
        static_cast<int>(row.integer(kGpu, 0, kMaxGpusPerNode, "an integer in 0..64"));
    if (gpus == 0) {
      ++cpu_nodes;
      continue;
    }
    if (row.missing(kModel)) row.fail(kModel, "a GPU model for a node with GPUs");
    // Without both columns, CPU and memory are not modeled.
    const bool has_capacity = row.has(kCpu) && row.has(kMemory);
    NodeCapacity capacity;
    if (has_capacity) {
      capacity.cpu_milli = row.integer(kCpu, 1, kMaxTraceCpuMilli, "an integer in 1..1000000000");
      capacity.memory_mib =
          row.integer(kMemory, 1, kMaxTraceMemoryMib, "an integer in 1..1073741824");
    }
    add_nodes(spec, std::string(row.text(kModel)), gpus, 1, "", has_capacity ? &capacity : nullptr);
  }
  return finish(std::move(spec), path, cpu_nodes, "nodes without GPUs");
}

ClusterSpec read_pai_machine_spec(const std::string& path) {
  enum Column : std::size_t { kMachine, kGpuType, kCpu, kMem, kGpu };
  static constexpr trace_kit::ColumnSpec kColumns[] = {{"machine", true},
                                                       {"gpu_type", true},
                                                       {"cap_cpu", true},
                                                       {"cap_mem", true},
                                                       {"cap_gpu", true}};
  const std::string text = read_file_bytes(path);
  CsvReader csv(text, path);
  std::vector<std::string_view> fields;
  if (!csv.next_row(fields)) throw TraceError(path, 1, "empty file: expected machine rows");
  const bool has_header =
      trace_kit::header_has(trace_kit::header_fields(text), {"machine", "cap_gpu"});
  const trace_kit::ColumnIndex columns =
      has_header ? trace_kit::ColumnIndex(path, csv.line(), fields, kColumns)
                 : trace_kit::ColumnIndex(kColumns, std::size(kColumns));
  trace_kit::RowParser row(path, columns);
  ClusterSpec spec;
  spec.gpu_types = builtin_gpu_types();
  spec.source = "alibaba-pai:" + path;
  std::uint64_t cpu_machines = 0;
  bool pending = !has_header;
  while (pending || csv.next_row(fields)) {
    pending = false;
    row.bind(fields, csv.line());
    if (row.text(kMachine).empty()) row.fail(kMachine, "a machine name");
    const auto gpus =
        static_cast<int>(row.integer(kGpu, 0, kMaxGpusPerNode, "an integer in 0..64"));
    if (gpus == 0) {
      ++cpu_machines;
      continue;
    }
    if (row.missing(kGpuType) || row.text(kGpuType) == "CPU")
      row.fail(kGpuType, "a GPU type for a machine with GPUs");
    add_nodes(spec, std::string(row.text(kGpuType)), gpus, 1, "");
  }
  return finish(std::move(spec), path, cpu_machines, "machines without GPUs");
}

ClusterSpec read_philly_vc_list(const std::string& path, const std::string& vc) {
  enum Column : std::size_t { kVc, kNodes };
  static constexpr trace_kit::ColumnSpec kColumns[] = {{"vc", true}, {"node num", true}};
  constexpr int kGpusPerNode = 8;
  const std::string text = read_file_bytes(path);
  CsvReader csv(text, path);
  std::vector<std::string_view> fields;
  if (!csv.next_row(fields)) throw TraceError(path, 1, "empty file: expected a header row");
  const trace_kit::ColumnIndex columns(path, csv.line(), fields, kColumns);
  trace_kit::RowParser row(path, columns);
  ClusterSpec spec;
  spec.gpu_types = builtin_gpu_types();
  spec.source = "philly-vc:" + path + (vc.empty() ? "" : "@" + vc);
  std::vector<std::string> names;
  while (csv.next_row(fields)) {
    row.bind(fields, csv.line());
    const std::string name(row.text(kVc));
    if (name.empty()) row.fail(kVc, "a virtual cluster name");
    const auto nodes = row.integer(kNodes, 0, 10'000'000, "an integer in 0..10000000");
    names.push_back(name);
    if ((!vc.empty() && name != vc) || nodes == 0) continue;
    add_nodes(spec, kDefaultGpuType, kGpusPerNode, static_cast<std::uint32_t>(nodes), "vc-" + name);
  }
  if (!vc.empty() && spec.groups.empty()) {
    std::string known;
    for (const auto& n : names) known += (known.empty() ? "" : ", ") + n;
    throw TraceError(path,
                     fmt::format("no virtual cluster '{}' with nodes (known: {})", vc, known));
  }
  return finish(std::move(spec), path, 0, "");
}

std::optional<ClusterSpec> parse_inventory_cluster_spec(const std::string& text) {
  auto after = [&text](std::string_view prefix) -> std::optional<std::string> {
    if (!text.starts_with(prefix)) return std::nullopt;
    std::string rest = text.substr(prefix.size());
    if (rest.empty())
      throw ConfigError(fmt::format("--cluster '{}': expected a file after '{}'", text, prefix));
    return rest;
  };
  if (auto file = after("alibaba-openb:")) return read_openb_node_list(*file);
  if (auto file = after("alibaba-pai:")) return read_pai_machine_spec(*file);
  if (auto file = after("philly-vc:")) {
    const auto at = file->rfind('@');
    if (at == std::string::npos) return read_philly_vc_list(*file, "");
    return read_philly_vc_list(file->substr(0, at), file->substr(at + 1));
  }
  return std::nullopt;
}

}  // namespace schedlab
