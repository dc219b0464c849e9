// Fuzzes the node inventory readers of `--cluster KIND:FILE` (trace_inventory.hpp), then
// exercise_cluster_spec, and the node and pod lists of `schedlab inflate` (sharing_inputs.hpp).
// The first input byte picks the reader (modulo 5: alibaba-openb node list, alibaba-pai machine
// spec, philly-vc VC list, shared node list, pod list); the rest is the file's content. For
// philly-vc a second part (after a kPartSeparator line) is the VC selected by "@VC". Pod lists
// are read against a fixed two-node cluster and, when they parse, inflated to 100% with every
// placement.
#include "fuzz_support.hpp"
#include "schedlab/error.hpp"
#include "schedlab/inflate.hpp"
#include "schedlab/sharing_inputs.hpp"
#include "schedlab/trace_inventory.hpp"

using namespace schedlab;

extern "C" int LLVMFuzzerInitialize(int* /*argc*/, char*** /*argv*/) {
  fuzz::quiet_logging();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const int reader = data[0] % 5;
  const auto parts = fuzz::split_parts(fuzz::text_of(data + 1, size - 1), reader == 2 ? 2 : 1);
  const std::string path = fuzz::write_scratch_file("inventory.csv", parts[0]);
  try {
    if (reader == 3) {
      const SharedCluster cluster = read_shared_nodes(path);
      for (const auto& node : cluster.nodes) check_node_invariants(node);
      return 0;
    }
    if (reader == 4) {
      const std::string nodes = fuzz::write_scratch_file(
          "shared-nodes.csv",
          "sn,cpu_milli,memory_mib,gpu,model\nn0,32000,65536,2,T4\nn1,8000,1024,0,\n");
      const SharedCluster cluster = read_shared_nodes(nodes);
      InflateOptions options;
      options.seeds = {1};
      options.inflation = 1.0;
      run_inflate(cluster, read_shared_tasks(path, cluster), options);
      return 0;
    }
    ClusterSpec spec;
    if (reader == 0) {
      spec = read_openb_node_list(path);
    } else if (reader == 1) {
      spec = read_pai_machine_spec(path);
    } else {
      spec = read_philly_vc_list(path, parts.size() > 1 ? std::string(parts[1]) : std::string());
    }
    fuzz::exercise_cluster_spec(spec);
  } catch (const InputError&) {
    // A documented input error: the CLI prints it and exits 2.
  }
  return 0;
}
