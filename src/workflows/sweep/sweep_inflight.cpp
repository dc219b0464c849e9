#include "schedlab/sweep_inflight.hpp"

#include <filesystem>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "schedlab/json_text.hpp"
#include "schedlab/output.hpp"
#include "schedlab/trace.hpp"

namespace schedlab {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

namespace {

std::string journal_path(const std::string& out_dir) {
  return (fs::path(out_dir) / kSweepInflightJournal).string();
}

}  // namespace

void write_sweep_inflight(const std::string& out_dir, const std::vector<SweepInflightCell>& cells) {
  Json list = Json::array();
  for (const auto& c : cells)
    list.push_back(Json{{"cell", c.cell}, {"rank", c.rank}, {"host", c.host}, {"pid", c.pid}});
  write_file_atomically(journal_path(out_dir), json_text(Json{{"in_flight", list}}, 2) + "\n");
}

std::vector<SweepInflightCell> read_sweep_inflight(const std::string& out_dir) {
  const std::string path = journal_path(out_dir);
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) return {};
  std::vector<SweepInflightCell> cells;
  try {
    const Json journal = parse_json_text<Json>(read_file_bytes(path), path);
    for (const auto& entry : journal.at("in_flight"))
      cells.push_back(
          SweepInflightCell{entry.at("cell").get<std::size_t>(), entry.at("rank").get<int>(),
                            entry.at("host").get<std::string>(), entry.at("pid").get<long>()});
  } catch (const std::exception&) {
    return {};
  }
  return cells;
}

void remove_sweep_inflight(const std::string& out_dir) {
  std::error_code ignored;
  fs::remove(journal_path(out_dir), ignored);
}

std::string interrupted_cell_text(const SweepInflightCell& cell) {
  return fmt::format(
      "the previous MPI run stopped with cell {} in flight on rank {} (pid {} on host {}); it "
      "runs again",
      cell.cell, cell.rank, cell.pid, cell.host);
}

}  // namespace schedlab
