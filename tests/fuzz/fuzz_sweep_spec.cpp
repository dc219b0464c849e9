// Fuzzes sweep specs (`schedlab sweep SPEC.json`): the input is the spec file's content, parsed
// as the sweep command does (JSON, then parse_sweep_spec with paths relative to a directory of
// no files), then normalized (sweep_spec_json) and expanded into cells, whose definitions, keys
// and directory names are formed for the first kMaxDefinedCells of them.
#include <algorithm>

#include <nlohmann/json.hpp>

#include "fuzz_support.hpp"
#include "schedlab/error.hpp"
#include "schedlab/json_text.hpp"
#include "schedlab/sweep.hpp"

using namespace schedlab;
using Json = nlohmann::ordered_json;

namespace {

constexpr std::size_t kMaxDefinedCells = 16;

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* /*argc*/, char*** /*argv*/) {
  fuzz::quiet_logging();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string source = "sweep.json";
  Json json;
  try {
    json = parse_json_text<Json>(fuzz::text_of(data, size), source);
  } catch (const nlohmann::json::exception&) {
    return 0;  // the sweep command reports "SPEC: not valid JSON: ..." (exit 2)
  } catch (const InputError&) {
    return 0;  // nested too deep
  }
  try {
    const SweepSpec spec = parse_sweep_spec(json, source, fuzz::scratch_dir() + "/no-such-dir");
    (void)json_text(sweep_spec_json(spec));
    const std::vector<SweepCell> cells = expand_cells(spec);
    for (std::size_t i = 0; i < std::min(cells.size(), kMaxDefinedCells); ++i) {
      const Json definition = cell_definition(spec, cells[i]);
      (void)cell_key(definition);
      (void)cell_dir_name(spec, cells[i]);
    }
  } catch (const InputError&) {
    // A documented input error: the CLI prints it and exits 2.
  }
  return 0;
}
