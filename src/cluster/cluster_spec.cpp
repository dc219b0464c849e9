// Parsing cluster specs: the compact "NODESxGPUS[:TYPE],..." form and the JSON file form.
#include <filesystem>
#include <optional>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "schedlab/cluster.hpp"
#include "schedlab/csv.hpp"
#include "schedlab/error.hpp"
#include "schedlab/job.hpp"
#include "schedlab/json_keys.hpp"
#include "schedlab/json_text.hpp"
#include "schedlab/mig.hpp"
#include "schedlab/names.hpp"
#include "schedlab/trace.hpp"
#include "schedlab/trace_inventory.hpp"

namespace schedlab {

const std::vector<GpuType>& builtin_gpu_types() {
  // Busy = board power limit (TDP) of the SXM part; idle = typical idle board draw.
  // Sources: docs/cluster-spec.md. Relative speed and node base/off power of an 8-GPU node:
  // docs/cluster.md (the speeds are estimates).
  static const std::vector<GpuType> types = {
      {"V100", 45.0, 300.0, 0.5, 1100.0, 50.0},   {"A100", 50.0, 400.0, 1.0, 3300.0, 50.0},
      {"H100", 70.0, 700.0, 2.0, 4600.0, 50.0},   {"H200", 75.0, 700.0, 2.2, 4600.0, 50.0},
      {"B200", 140.0, 1000.0, 4.0, 6300.0, 50.0},
  };
  return types;
}

CommFactors::CommFactors() {
  // Rows: link level; columns: comm none, low, medium, high. Sources: docs/cluster.md.
  static constexpr double kDefaults[kLinkLevelCount][4] = {
      {1.0, 1.0, 1.0, 1.0},     // inside one NVLink domain: the reference
      {1.0, 1.02, 1.1, 1.3},    // across NVLink domains of a node (estimate)
      {1.0, 1.07, 1.41, 2.38},  // across nodes of a rack (Pollux ResNet-50 placement traces)
      {1.0, 1.1, 1.5, 2.6},     // across racks (estimate)
      {1.0, 1.15, 1.6, 2.8},    // across pods (estimate)
  };
  for (int level = 0; level < kLinkLevelCount; ++level)
    for (int comm = 0; comm < 4; ++comm) factor[level][comm] = kDefaults[level][comm];
}

namespace {

// Physical bounds (docs/cluster-spec.md): far above any real part, so that no energy sum of a
// run can overflow to inf.
constexpr double kMaxGpuWatts = 1e5;
constexpr double kMaxNodeWatts = 1e6;

void add_or_replace_type(std::vector<GpuType>& types, GpuType type) {
  for (auto& existing : types) {
    if (existing.name == type.name) {
      existing = std::move(type);
      return;
    }
  }
  types.push_back(std::move(type));
}

// The type's own name for `name`: equal, else equal without regard to case and '_'/'-'.
std::optional<std::string> canonical_type(const std::vector<GpuType>& types,
                                          const std::string& name) {
  for (const auto& t : types)
    if (t.name == name) return t.name;
  for (const auto& t : types)
    if (same_name(t.name, name)) return t.name;
  return std::nullopt;
}

std::string type_suggestion(const std::vector<GpuType>& types, const std::string& name) {
  std::vector<std::string> names;
  names.reserve(types.size());
  for (const auto& t : types) names.push_back(t.name);
  return did_you_mean(name, names);
}

std::string known_type_list(const std::vector<GpuType>& types) {
  std::string out;
  for (const auto& t : types) out += (out.empty() ? "" : ", ") + t.name;
  return out;
}

ClusterSpec parse_compact(const std::string& text) {
  ClusterSpec spec;
  spec.gpu_types = builtin_gpu_types();
  spec.source = text;
  auto fail = [&text](const std::string& item, const std::string& why) -> ConfigError {
    return ConfigError(fmt::format("--cluster '{}': group '{}': {}", text, item, why));
  };
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = text.find(',', start);
    const std::string item(trim(std::string_view(text).substr(
        start, comma == std::string::npos ? std::string::npos : comma - start)));
    start = comma == std::string::npos ? text.size() + 1 : comma + 1;
    NodeGroupSpec group;
    std::string shape = item;
    const std::size_t colon = item.find(':');
    group.gpu_type = kDefaultGpuType;
    if (colon != std::string::npos) {
      shape = std::string(trim(std::string_view(item).substr(0, colon)));
      group.gpu_type = std::string(trim(std::string_view(item).substr(colon + 1)));
      const auto type = canonical_type(spec.gpu_types, group.gpu_type);
      if (!type)
        throw fail(item,
                   fmt::format("unknown GPU type '{}'{} (known: {}; define others in a "
                               "cluster JSON file)",
                               group.gpu_type, type_suggestion(spec.gpu_types, group.gpu_type),
                               known_type_list(spec.gpu_types)));
      group.gpu_type = *type;
    }
    const std::size_t x = shape.find('x');
    if (x == std::string::npos) throw fail(item, "expected NODESxGPUS[:TYPE], e.g. 64x8:A100");
    const auto nodes = parse_int(std::string_view(shape).substr(0, x));
    const auto gpus = parse_int(std::string_view(shape).substr(x + 1));
    if (!nodes || *nodes < 1 || *nodes > 10'000'000)
      throw fail(item, fmt::format("node count '{}' is not an integer in 1..10000000",
                                   shape.substr(0, x)));
    if (!gpus || *gpus < 1 || *gpus > kMaxGpusPerNode)
      throw fail(item,
                 fmt::format("GPUs per node '{}' is not an integer in 1..64", shape.substr(x + 1)));
    group.count = static_cast<std::uint32_t>(*nodes);
    group.gpus_per_node = static_cast<int>(*gpus);
    spec.groups.push_back(group);
  }
  return spec;
}

double json_number(const nlohmann::json& obj, const std::string& key, const std::string& path,
                   const std::string& source) {
  if (!obj.contains(key)) throw ConfigError(fmt::format("{}: {}.{}: missing", source, path, key));
  const auto& v = obj.at(key);
  if (!v.is_number())
    throw ConfigError(
        fmt::format("{}: {}.{}: expected a number, got {}", source, path, key, json_text(v)));
  return v.get<double>();
}

// An optional integer in [lo, hi]; `fallback` when absent.
std::int64_t json_integer_in(const nlohmann::json& obj, const std::string& key,
                             const std::string& path, const std::string& source,
                             std::int64_t fallback, std::int64_t lo, std::int64_t hi) {
  if (!obj.contains(key)) return fallback;
  const auto& v = obj.at(key);
  if (!v.is_number_integer() || v.get<std::int64_t>() < lo || v.get<std::int64_t>() > hi)
    throw ConfigError(fmt::format("{}: {}.{}: expected an integer in {}..{}, got {}", source, path,
                                  key, lo, hi, json_text(v)));
  return v.get<std::int64_t>();
}

// An optional number in [lo, hi]; `fallback` when absent.
double json_number_in(const nlohmann::json& obj, const std::string& key, const std::string& path,
                      const std::string& source, double fallback, double lo, double hi) {
  if (!obj.contains(key)) return fallback;
  const double value = json_number(obj, key, path, source);
  if (!(value >= lo && value <= hi))
    throw ConfigError(fmt::format("{}: {}.{}: expected a number in {}..{}, got {}", source, path,
                                  key, lo, hi, json_text(obj.at(key))));
  return value;
}

void check_keys(const nlohmann::json& obj, const std::vector<std::string>& known,
                const std::string& path, const std::string& source) {
  if (const auto key = first_unknown_key(obj, known)) {
    std::string list;
    for (const auto& name : known) list += (list.empty() ? "" : ", ") + name;
    throw ConfigError(fmt::format("{}: {}.{}: unknown key{} (known: {})", source, path, *key,
                                  did_you_mean(*key, known), list));
  }
}

// "topology": link bandwidths per level (docs/cluster.md).
void parse_topology(const nlohmann::json& doc, ClusterSpec& spec, const std::string& source) {
  const auto& t = doc.at("topology");
  const std::string path = "$.topology";
  if (!t.is_object()) throw ConfigError(fmt::format("{}: {}: expected an object", source, path));
  check_keys(
      t,
      {"nvlink_gbps", "intra_node_gbps", "node_uplink_gbps", "rack_uplink_gbps", "pod_uplink_gbps"},
      path, source);
  TopologySpec& topo = spec.topology;
  topo.given = true;
  topo.nvlink_gbps = json_number_in(t, "nvlink_gbps", path, source, topo.nvlink_gbps, 1e-3, 1e9);
  topo.intra_node_gbps =
      json_number_in(t, "intra_node_gbps", path, source, topo.intra_node_gbps, 1e-3, 1e9);
  topo.node_uplink_gbps =
      json_number_in(t, "node_uplink_gbps", path, source, topo.node_uplink_gbps, 1e-3, 1e9);
  topo.rack_uplink_gbps =
      json_number_in(t, "rack_uplink_gbps", path, source, topo.rack_uplink_gbps, 1e-3, 1e9);
  topo.pod_uplink_gbps =
      json_number_in(t, "pod_uplink_gbps", path, source, topo.pod_uplink_gbps, 1e-3, 1e9);
}

// "comm_factors": {"<level>": {"<comm>": factor >= 1}}, partial overrides of the defaults.
void parse_comm_factors(const nlohmann::json& doc, ClusterSpec& spec, const std::string& source) {
  const auto& f = doc.at("comm_factors");
  if (!f.is_object())
    throw ConfigError(fmt::format("{}: $.comm_factors: expected an object", source));
  const std::vector<std::string> levels = {"intra_node", "intra_rack", "cross_rack", "cross_pod"};
  const std::vector<std::string> comms = {"none", "low", "medium", "high"};
  check_keys(f, levels, "$.comm_factors", source);
  for (std::size_t l = 0; l < levels.size(); ++l) {
    if (!f.contains(levels[l])) continue;
    const std::string path = "$.comm_factors." + levels[l];
    const auto& row = f.at(levels[l]);
    if (!row.is_object())
      throw ConfigError(fmt::format("{}: {}: expected an object", source, path));
    check_keys(row, comms, path, source);
    auto& factors = spec.comm_factors.factor[l + 1];  // row 0 is NVLink: always 1
    for (std::size_t c = 0; c < comms.size(); ++c)
      factors[c] = json_number_in(row, comms[c], path, source, factors[c], 1.0, 1000.0);
  }
}

std::string json_string(const nlohmann::json& obj, const std::string& key, const std::string& path,
                        const std::string& source, const std::string& fallback) {
  if (!obj.contains(key)) return fallback;
  const auto& v = obj.at(key);
  if (!v.is_string())
    throw ConfigError(
        fmt::format("{}: {}.{}: expected a string, got {}", source, path, key, json_text(v)));
  return v.get<std::string>();
}

}  // namespace

ClusterSpec parse_cluster_json_text(const std::string& document, const std::string& source) {
  nlohmann::json doc;
  try {
    doc = parse_json_text<nlohmann::json>(document, source);
  } catch (const nlohmann::json::parse_error& e) {
    throw ConfigError(fmt::format("{}: invalid JSON at byte {}: {}", source, e.byte, e.what()));
  } catch (const nlohmann::json::exception& e) {
    throw ConfigError(fmt::format("{}: invalid JSON: {}", source, json_error_text(e)));
  }
  if (!doc.is_object()) throw ConfigError(fmt::format("{}: $: expected an object", source));
  ClusterSpec spec;
  spec.gpu_types = builtin_gpu_types();
  spec.source = source;
  static const std::vector<std::string> known_keys = {"gpu_types", "node_groups", "topology",
                                                      "comm_factors", "pue"};
  check_keys(doc, known_keys, "$", source);
  if (doc.contains("topology")) parse_topology(doc, spec, source);
  if (doc.contains("comm_factors")) parse_comm_factors(doc, spec, source);
  spec.pue = json_number_in(doc, "pue", "$", source, 1.0, 1.0, 10.0);
  if (doc.contains("gpu_types")) {
    const auto& types = doc.at("gpu_types");
    if (!types.is_array())
      throw ConfigError(fmt::format("{}: $.gpu_types: expected an array", source));
    for (std::size_t i = 0; i < types.size(); ++i) {
      const std::string path = fmt::format("$.gpu_types[{}]", i);
      const auto& t = types[i];
      if (!t.is_object())
        throw ConfigError(fmt::format("{}: {}: expected an object", source, path));
      check_keys(
          t,
          {"name", "idle_watts", "busy_watts", "speed", "node_base_watts", "node_off_watts", "mig"},
          path, source);
      GpuType type;
      type.name = json_string(t, "name", path, source, "");
      if (type.name.empty())
        throw ConfigError(fmt::format("{}: {}.name: missing or empty", source, path));
      type.idle_power_w = json_number(t, "idle_watts", path, source);
      type.busy_power_w = json_number(t, "busy_watts", path, source);
      for (const char* key : {"idle_watts", "busy_watts"}) {
        const double watts = json_number(t, key, path, source);
        if (!(watts >= 0 && watts <= kMaxGpuWatts))
          throw ConfigError(fmt::format("{}: {}.{}: expected watts in 0..{:g} per GPU, got {}",
                                        source, path, key, kMaxGpuWatts, json_text(t.at(key))));
      }
      if (type.busy_power_w < type.idle_power_w)
        throw ConfigError(fmt::format("{}: {}.busy_watts: must be >= idle_watts, got {}", source,
                                      path, type.busy_power_w));
      // A built-in type keeps its speed and node figures unless the entry gives them.
      for (const auto& builtin : builtin_gpu_types()) {
        if (builtin.name != type.name) continue;
        type.speed = builtin.speed;
        type.node_base_power_w = builtin.node_base_power_w;
        type.node_off_power_w = builtin.node_off_power_w;
      }
      type.speed = json_number_in(t, "speed", path, source, type.speed, 1e-3, 1e3);
      type.node_base_power_w = json_number_in(t, "node_base_watts", path, source,
                                              type.node_base_power_w, 0, kMaxNodeWatts);
      type.node_off_power_w = json_number_in(t, "node_off_watts", path, source,
                                             type.node_off_power_w, 0, kMaxNodeWatts);
      if (t.contains("mig")) {
        type.mig = json_string(t, "mig", path, source, "");
        if (find_mig_geometry(type.mig) == nullptr)
          throw ConfigError(fmt::format("{}: {}.mig: unknown MIG geometry '{}' (known: {})", source,
                                        path, type.mig, mig_geometry_names()));
      }
      add_or_replace_type(spec.gpu_types, type);
    }
  }
  if (!doc.contains("node_groups") || !doc.at("node_groups").is_array() ||
      doc.at("node_groups").empty())
    throw ConfigError(fmt::format("{}: $.node_groups: expected a non-empty array", source));
  const auto& groups = doc.at("node_groups");
  for (std::size_t i = 0; i < groups.size(); ++i) {
    const std::string path = fmt::format("$.node_groups[{}]", i);
    const auto& g = groups[i];
    if (!g.is_object()) throw ConfigError(fmt::format("{}: {}: expected an object", source, path));
    check_keys(
        g,
        {"count", "gpus_per_node", "gpu_type", "rack", "pod", "nodes_per_rack",
         "nvlink_domain_gpus", "uplink_gbps", "base_watts", "off_watts", "cpu_milli", "memory_mib"},
        path, source);
    NodeGroupSpec group;
    const double count = json_number(g, "count", path, source);
    const double gpus = json_number(g, "gpus_per_node", path, source);
    if (count < 1 || count > 10'000'000 ||
        count != static_cast<double>(static_cast<std::int64_t>(count)))
      throw ConfigError(fmt::format("{}: {}.count: expected an integer in 1..10000000, got {}",
                                    source, path, json_text(g.at("count"))));
    if (gpus < 1 || gpus > kMaxGpusPerNode || gpus != static_cast<double>(static_cast<int>(gpus)))
      throw ConfigError(fmt::format("{}: {}.gpus_per_node: expected an integer in 1..64, got {}",
                                    source, path, json_text(g.at("gpus_per_node"))));
    group.count = static_cast<std::uint32_t>(count);
    group.gpus_per_node = static_cast<int>(gpus);
    group.gpu_type = json_string(g, "gpu_type", path, source, kDefaultGpuType);
    const auto type = canonical_type(spec.gpu_types, group.gpu_type);
    if (!type)
      throw ConfigError(fmt::format(
          "{}: {}.gpu_type: unknown GPU type '{}'{} (known: {})", source, path, group.gpu_type,
          type_suggestion(spec.gpu_types, group.gpu_type), known_type_list(spec.gpu_types)));
    group.gpu_type = *type;
    group.rack = json_string(g, "rack", path, source, "");
    group.pod = json_string(g, "pod", path, source, "");
    group.nodes_per_rack = static_cast<std::uint32_t>(
        json_integer_in(g, "nodes_per_rack", path, source, 0, 1, 10'000'000));
    group.nvlink_domain_gpus = static_cast<int>(
        json_integer_in(g, "nvlink_domain_gpus", path, source, 0, 1, kMaxGpusPerNode));
    if (group.nvlink_domain_gpus > 0 && group.gpus_per_node % group.nvlink_domain_gpus != 0)
      throw ConfigError(
          fmt::format("{}: {}.nvlink_domain_gpus: {} does not divide gpus_per_node ({})", source,
                      path, group.nvlink_domain_gpus, group.gpus_per_node));
    group.uplink_gbps = json_number_in(g, "uplink_gbps", path, source, kUnsetNumber, 1e-3, 1e9);
    group.base_power_w =
        json_number_in(g, "base_watts", path, source, kUnsetNumber, 0, kMaxNodeWatts);
    group.off_power_w =
        json_number_in(g, "off_watts", path, source, kUnsetNumber, 0, kMaxNodeWatts);
    group.capacity.cpu_milli =
        json_integer_in(g, "cpu_milli", path, source, 0, 1, kMaxTraceCpuMilli);
    group.capacity.memory_mib =
        json_integer_in(g, "memory_mib", path, source, 0, 1, kMaxTraceMemoryMib);
    spec.groups.push_back(group);
  }
  return spec;
}

namespace {

ClusterSpec parse_cluster_spec_unchecked(const std::string& text) {
  // Node inventories published with traces: alibaba-openb:FILE, alibaba-pai:FILE, philly-vc:FILE.
  if (auto inventory = parse_inventory_cluster_spec(text)) return *inventory;
  const bool looks_like_file = text.ends_with(".json") || text.find('/') != std::string::npos;
  std::error_code ec;
  if (looks_like_file || std::filesystem::is_regular_file(text, ec)) {
    return parse_cluster_json_text(read_file_bytes(text), text);
  }
  if (trim(text).empty()) throw ConfigError("--cluster: empty spec (expected e.g. 64x8:A100)");
  return parse_compact(text);
}

}  // namespace

ClusterSpec parse_cluster_spec(const std::string& text) {
  ClusterSpec spec = parse_cluster_spec_unchecked(text);
  check_cluster_size(spec);  // before anything else is read, so the message stands alone
  return spec;
}

}  // namespace schedlab
