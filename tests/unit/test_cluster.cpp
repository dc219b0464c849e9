#include <catch2/catch.hpp>

#include <fstream>

#include "schedlab/cluster.hpp"
#include "schedlab/error.hpp"
#include "support/builders.hpp"

using namespace schedlab;

namespace {

std::string error_of(const std::string& spec) {
  try {
    parse_cluster_spec(spec);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "no error";
}

std::string write_temp(const std::string& name, const std::string& content) {
  const std::string path = schedlab::testing::fresh_temp_dir("cluster") + "/" + name;
  std::ofstream(path) << content;
  return path;
}

}  // namespace

TEST_CASE("compact cluster spec with several groups", "[cluster]") {
  const Cluster cluster(parse_cluster_spec("64x8:A100,16x8:H100"));
  CHECK(cluster.node_count() == 80);
  CHECK(cluster.total_gpus() == 640);
  const auto a100 = cluster.find_gpu_type("A100");
  const auto h100 = cluster.find_gpu_type("H100");
  REQUIRE(a100);
  REQUIRE(h100);
  CHECK(cluster.total_gpus_of(*a100) == 512);
  CHECK(cluster.total_gpus_of(*h100) == 128);
  CHECK(cluster.node(63).type == *a100);
  CHECK(cluster.node(64).type == *h100);
  CHECK(cluster.node(64).first_gpu_id == 512);
  CHECK(cluster.gpu_types()[*h100].busy_power_w == 700.0);
  CHECK(cluster.gpu_types()[*h100].idle_power_w == 70.0);
}

TEST_CASE("default GPU type is A100, one node of 64 GPUs", "[cluster]") {
  const Cluster cluster(parse_cluster_spec("1x64"));
  CHECK(cluster.node_count() == 1);
  CHECK(cluster.total_gpus() == 64);
  CHECK(cluster.gpu_types()[cluster.node(0).type].name == "A100");
  CHECK(cluster.node(0).free_mask == ~GpuMask{0});
}

TEST_CASE("built-in GPU power table", "[cluster]") {
  const auto& types = builtin_gpu_types();
  REQUIRE(types.size() == 5);
  auto check = [&](const char* name, double idle, double busy) {
    for (const auto& t : types)
      if (t.name == name) {
        CHECK(t.idle_power_w == idle);
        CHECK(t.busy_power_w == busy);
        return;
      }
    FAIL(name);
  };
  check("V100", 45, 300);
  check("A100", 50, 400);
  check("H100", 70, 700);
  check("H200", 75, 700);
  check("B200", 140, 1000);
}

TEST_CASE("clusters of more than 100,000 GPUs", "[cluster]") {
  const Cluster cluster(parse_cluster_spec("12500x8:H100,100x64:B200"));
  CHECK(cluster.total_gpus() == 106'400);
  CHECK(cluster.node_count() == 12'600);
  CHECK(cluster.node(12'599).first_gpu_id == 106'400 - 64);
}

TEST_CASE("compact cluster spec errors", "[cluster]") {
  CHECK(error_of("0x8") ==
        "--cluster '0x8': group '0x8': node count '0' is not an integer in 1..10000000");
  CHECK(error_of("2x65") ==
        "--cluster '2x65': group '2x65': GPUs per node '65' is not an integer in 1..64");
  CHECK(error_of("2x0") ==
        "--cluster '2x0': group '2x0': GPUs per node '0' is not an integer in 1..64");
  CHECK(error_of("4x8:Z100") ==
        "--cluster '4x8:Z100': group '4x8:Z100': unknown GPU type 'Z100'; did you mean 'V100'? "
        "(known: V100, "
        "A100, H100, "
        "H200, B200; define others in a cluster JSON file)");
  CHECK(error_of("eight") ==
        "--cluster 'eight': group 'eight': expected NODESxGPUS[:TYPE], e.g. 64x8:A100");
  CHECK(error_of("4x8,") ==
        "--cluster '4x8,': group '': expected NODESxGPUS[:TYPE], e.g. 64x8:A100");
  CHECK(error_of("") == "--cluster: empty spec (expected e.g. 64x8:A100)");
}

TEST_CASE("cluster JSON file with custom GPU types and racks", "[cluster]") {
  const std::string path = write_temp("c.json", R"({
    "gpu_types": [{"name": "L40S", "idle_watts": 35, "busy_watts": 350},
                  {"name": "A100", "idle_watts": 55, "busy_watts": 400}],
    "node_groups": [{"count": 2, "gpus_per_node": 4, "gpu_type": "L40S", "rack": "r1"},
                    {"count": 3, "gpus_per_node": 8, "rack": "r2"},
                    {"count": 1, "gpus_per_node": 8, "gpu_type": "H100", "rack": "r1"}]
  })");
  const Cluster cluster(parse_cluster_spec(path));
  CHECK(cluster.node_count() == 6);
  CHECK(cluster.total_gpus() == 40);
  CHECK(cluster.rack_count() == 2);
  CHECK(cluster.node(5).rack == cluster.node(0).rack);
  CHECK(cluster.gpu_types()[cluster.node(0).type].name == "L40S");
  CHECK(cluster.gpu_types()[cluster.node(2).type].name == "A100");
  CHECK(cluster.gpu_types()[cluster.node(2).type].idle_power_w == 55.0);
}

TEST_CASE("cluster JSON errors name the file and the JSON path", "[cluster]") {
  auto error_of_json = [](const std::string& json) {
    const std::string path = write_temp("bad.json", json);
    try {
      parse_cluster_spec(path);
    } catch (const ConfigError& e) {
      const std::string what = e.what();
      CHECK(what.rfind(path + ": ", 0) == 0);
      return what.substr(path.size() + 2);
    }
    return std::string("no error");
  };
  CHECK(error_of_json(R"({"node_groups": []})") == "$.node_groups: expected a non-empty array");
  CHECK(error_of_json(R"({"node_groups": [{"count": 2}]})") ==
        "$.node_groups[0].gpus_per_node: missing");
  CHECK(error_of_json(R"({"node_groups": [{"count": 2, "gpus_per_node": 80}]})") ==
        "$.node_groups[0].gpus_per_node: expected an integer in 1..64, got 80");
  CHECK(error_of_json(R"({"node_groups": [{"count": 1.5, "gpus_per_node": 8}]})") ==
        "$.node_groups[0].count: expected an integer in 1..10000000, got 1.5");
  CHECK(error_of_json(R"({"node_groups": [{"count": 1, "gpus_per_node": 8, "gpu_type": "X"}]})") ==
        "$.node_groups[0].gpu_type: unknown GPU type 'X' (known: V100, A100, H100, H200, B200)");
  CHECK(error_of_json(R"({"gpu_types": [{"name": "X", "idle_watts": 10}], "node_groups": []})") ==
        "$.gpu_types[0].busy_watts: missing");
  CHECK(error_of_json(R"({"gpu_types": [{"name": "X", "idle_watts": 100, "busy_watts": 50}]})") ==
        "$.gpu_types[0].busy_watts: must be >= idle_watts, got 50");
  CHECK(error_of_json(R"({"nodes": 3})") ==
        "$.nodes: unknown key (known: gpu_types, node_groups, topology, comm_factors, pue)");
  // A misspelt key inside an entry is an error, not a silently ignored default.
  CHECK(
      error_of_json(R"({"node_groups": [{"count": 1, "gpus_per_node": 8, "gpu_typ": "A100"}]})") ==
      "$.node_groups[0].gpu_typ: unknown key; did you mean 'gpu_type'? (known: count, "
      "gpus_per_node, gpu_type, rack, pod, "
      "nodes_per_rack, nvlink_domain_gpus, uplink_gbps, base_watts, off_watts, cpu_milli, "
      "memory_mib)");
  CHECK(error_of_json(R"({"gpu_types": [{"name": "X", "idle_watts": 1, "busy_watts": 2,
                         "speeed": 2}], "node_groups": []})") ==
        "$.gpu_types[0].speeed: unknown key; did you mean 'speed'? (known: name, idle_watts, "
        "busy_watts, speed, "
        "node_base_watts, node_off_watts, mig)");
  CHECK(error_of_json("[1,2]") == "$: expected an object");
  // Sizes beyond any real cluster are refused up front (memory stays bounded).
  CHECK(error_of_json(R"({"node_groups": [{"count": 10000000, "gpus_per_node": 64,
                         "nodes_per_rack": 1}]})") ==
        "10000000 nodes with 640000000 GPUs is more than supported (1000000 nodes, 10000000 "
        "GPUs)");
  CHECK_THROWS_WITH(parse_cluster_spec("600000x8,600000x8"),
                    "600000x8,600000x8: 1200000 nodes with 9600000 GPUs is more than supported "
                    "(1000000 nodes, 10000000 GPUs)");
  CHECK(error_of_json(R"({"node_groups": [{"count": 1e999, "gpus_per_node": 8}]})") ==
        "invalid JSON: number overflow parsing '1e999'");
  CHECK(error_of_json("{\"node_groups\": [").rfind("invalid JSON at byte", 0) == 0);
  CHECK_THROWS_WITH(parse_cluster_spec("/nonexistent/c.json"),
                    "/nonexistent/c.json: cannot open for reading: No such file or directory");
}

TEST_CASE("allocate and release keep free counts and masks consistent", "[cluster]") {
  Cluster cluster(parse_cluster_spec("2x4"));
  cluster.allocate({{0, 0b0011}, {1, 0b1111}});
  CHECK(cluster.free_gpus() == 2);
  CHECK(cluster.node(0).free_gpus() == 2);
  CHECK(cluster.node(1).free_gpus() == 0);
  CHECK(cluster.groups()[0].nodes_by_free[2].contains(0));
  CHECK(cluster.groups()[0].nodes_by_free[0].contains(1));
  CHECK_FALSE(cluster.can_allocate({{0, 0b0001}}));   // already held
  CHECK_FALSE(cluster.can_allocate({{0, 0b10000}}));  // GPU 4 does not exist on a 4-GPU node
  CHECK_FALSE(cluster.can_allocate({{1, 0}}));
  CHECK_FALSE(cluster.can_allocate({{0, 0b0100}, {0, 0b1000}}));  // node twice
  CHECK_THROWS_AS(cluster.allocate({{0, 0b0001}}), InvariantError);
  CHECK_THROWS_AS(cluster.release({{0, 0b0100}}), InvariantError);
  cluster.release({{1, 0b1111}});
  CHECK(cluster.free_gpus() == 6);
  CHECK(cluster.groups()[0].nodes_by_free[4].contains(1));
  CHECK(cluster.gpu_id_ranges({{0, 0b0011}, {1, 0b1011}}) == "0-1 4-5 7");
}
