// Fuzzes the node inventory readers of `--cluster KIND:FILE` (trace_inventory.hpp), then
// exercise_cluster_spec. The first input byte picks the reader (modulo 3: alibaba-openb node
// list, alibaba-pai machine spec, philly-vc VC list); the rest is the file's content. For
// philly-vc a second part (after a kPartSeparator line) is the VC selected by "@VC".
#include "fuzz_support.hpp"
#include "schedlab/error.hpp"
#include "schedlab/trace_inventory.hpp"

using namespace schedlab;

extern "C" int LLVMFuzzerInitialize(int* /*argc*/, char*** /*argv*/) {
  fuzz::quiet_logging();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const int reader = data[0] % 3;
  const auto parts = fuzz::split_parts(fuzz::text_of(data + 1, size - 1), reader == 2 ? 2 : 1);
  const std::string path = fuzz::write_scratch_file("inventory.csv", parts[0]);
  try {
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
