// Fuzzes cluster specs (`--cluster`): input whose first non-blank byte is '{' or '[' is a
// cluster JSON file's content (parse_cluster_json_text), any other the compact form
// "NODESxGPUS[:TYPE],..." (parse_cluster_spec); then exercise_cluster_spec. Compact texts that
// would name a file (an inventory prefix, a '/', ".json", an existing file) are left out: the
// cluster JSON and inventory readers are fuzzed from content.
#include <filesystem>
#include <string>

#include "fuzz_support.hpp"
#include "schedlab/csv.hpp"
#include "schedlab/error.hpp"

using namespace schedlab;

namespace {

bool names_a_file(const std::string& text) {
  if (text.find('/') != std::string::npos || text.ends_with(".json")) return true;
  for (const char* prefix : {"alibaba-openb:", "alibaba-pai:", "philly-vc:"})
    if (text.starts_with(prefix)) return true;
  std::error_code ec;
  return std::filesystem::exists(text, ec) || ec;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* /*argc*/, char*** /*argv*/) {
  fuzz::quiet_logging();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(fuzz::text_of(data, size));
  const std::string_view content = trim(text);
  const bool json = !content.empty() && (content.front() == '{' || content.front() == '[');
  if (!json && names_a_file(text)) return 0;
  try {
    const ClusterSpec spec =
        json ? parse_cluster_json_text(text, "cluster.json") : parse_cluster_spec(text);
    fuzz::exercise_cluster_spec(spec);
  } catch (const InputError&) {
    // A documented input error: the CLI prints it and exits 2.
  }
  return 0;
}
