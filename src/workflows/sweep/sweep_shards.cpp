// Shards of a sweep: which cells a shard runs, and joining shard outputs into one results set.
#include <filesystem>
#include <map>
#include <optional>
#include <string_view>

#include <fmt/format.h>

#include "schedlab/csv.hpp"
#include "schedlab/error.hpp"
#include "schedlab/json_text.hpp"
#include "schedlab/output.hpp"
#include "schedlab/sweep.hpp"
#include "schedlab/sweep_batch.hpp"
#include "schedlab/trace.hpp"

namespace schedlab {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

SweepShard parse_sweep_shard(const std::string& text) {
  const auto slash = text.find('/');
  const auto index = slash == std::string::npos ? std::nullopt : parse_int(text.substr(0, slash));
  const auto count = slash == std::string::npos ? std::nullopt : parse_int(text.substr(slash + 1));
  if (!index || !count || *count < 1 || *count > 1'000'000 || *index < 1 || *index > *count)
    throw ConfigError(fmt::format(
        "--shard {}: expected K/N with 1 <= K <= N <= 1000000 (shard K of N, e.g. 2/8)", text));
  return SweepShard{static_cast<std::size_t>(*index), static_cast<std::size_t>(*count)};
}

namespace {

// One shard's output directory, read and checked.
struct ShardOutput {
  std::string dir;
  SweepShard shard;
  Json spec;  // sweep.json without "shard"
  std::vector<Json> rows;
};

std::string shard_text(const SweepShard& shard) {
  return fmt::format("{}/{}", shard.index, shard.count);
}

ShardOutput read_shard(const std::string& dir) {
  const std::string spec_path = (fs::path(dir) / "sweep.json").string();
  std::error_code ec;
  if (!fs::is_regular_file(spec_path, ec))
    throw ConfigError(fmt::format("{}: missing (not a sweep output directory)", spec_path));
  require_complete_output_set(dir);
  ShardOutput out;
  out.dir = dir;
  try {
    out.spec = parse_json_text<Json>(read_file_bytes(spec_path), spec_path);
  } catch (const nlohmann::json::exception& e) {
    throw ConfigError(fmt::format("{}: not valid JSON: {}", spec_path, json_error_text(e)));
  }
  if (!out.spec.is_object())
    throw ConfigError(fmt::format("{}: expected a JSON object", spec_path));
  if (const auto it = out.spec.find("shard"); it != out.spec.end()) {
    const Json& shard = *it;
    auto field = [&](const char* key) -> std::size_t {
      if (!shard.is_object() || !shard.contains(key) || !shard[key].is_number_unsigned())
        throw ConfigError(
            fmt::format("{}: \"shard.{}\": expected an integer >= 1, got {}", spec_path, key,
                        shard.is_object() && shard.contains(key) ? json_text(shard[key])
                                                                 : std::string("nothing")));
      return shard[key].get<std::size_t>();
    };
    out.shard = SweepShard{field("index"), field("count")};
    if (out.shard.index < 1 || out.shard.index > out.shard.count)
      throw ConfigError(fmt::format("{}: \"shard\": {} is not a shard (expected K/N, 1 <= K <= N)",
                                    spec_path, shard_text(out.shard)));
    out.spec.erase("shard");
  }
  out.rows = read_sweep_results((fs::path(dir) / "results.jsonl").string());
  return out;
}

// The number of cells of a normalized spec: the product of its axes.
std::size_t spec_cell_count(const Json& spec, const std::string& spec_path) {
  std::size_t count = 1;
  for (const char* axis : {"policies", "traces", "clusters", "load_scales", "seeds"}) {
    if (!spec.contains(axis) || !spec[axis].is_array() || spec[axis].empty())
      throw ConfigError(
          fmt::format("{}: \"{}\": expected a non-empty array (a sweep.json written by sweep)",
                      spec_path, axis));
    count *= spec[axis].size();
  }
  return count;
}

// The first top-level field where two specs differ.
std::string first_difference(const Json& a, const Json& b) {
  for (const auto& [key, value] : a.items())
    if (!b.contains(key) || b[key] != value) return key;
  for (const auto& [key, value] : b.items())
    if (!a.contains(key)) return key;
  return "(order of fields)";
}

// The files of a finished cell in the order its completion marker lists them (cell.json, the
// file that marks the cell done, last); throws ConfigError when the cell is not finished.
std::vector<std::string> finished_cell_files(const fs::path& dir) {
  require_complete_output_set(dir.string());
  const std::string listing = read_file_bytes((dir / kCompleteMarker).string());
  std::vector<std::string> names;
  std::size_t begin = 0;
  while (begin < listing.size()) {
    std::size_t end = listing.find('\n', begin);
    if (end == std::string::npos) end = listing.size();
    if (end > begin) names.push_back(listing.substr(begin, end - begin));
    begin = end + 1;
  }
  if (names.empty() || names.back() != "cell.json")
    throw ConfigError(
        fmt::format("{}: not a finished sweep cell (its {} marker does not end with cell.json)",
                    dir.string(), kCompleteMarker));
  return names;
}

// A results row's cell directory: "cells/" and digits, nothing that leaves the sweep directory.
bool is_cell_dir_name(const std::string& dir) {
  if (!dir.starts_with("cells/") || dir.size() == 6) return false;
  return dir.find_first_not_of("0123456789", 6) == std::string::npos;
}

void copy_cell(const fs::path& from, const fs::path& to) {
  const std::vector<std::string> names = finished_cell_files(from);
  std::vector<std::string> contents;
  contents.reserve(names.size());
  for (const auto& name : names) contents.push_back(read_file_bytes((from / name).string()));
  std::vector<std::pair<std::string, std::string_view>> files;
  for (std::size_t i = 0; i < names.size(); ++i) files.emplace_back(names[i], contents[i]);
  write_files_atomically(to.string(), files);
}

}  // namespace

SweepMergeOutcome merge_sweep_shards(const std::vector<std::string>& shard_dirs,
                                     const std::string& out_dir) {
  if (shard_dirs.empty()) throw ConfigError("--merge: no shard directories given");
  std::error_code ec;
  for (const auto& dir : shard_dirs)
    if (fs::exists(out_dir, ec) && fs::equivalent(dir, out_dir, ec))
      throw ConfigError(fmt::format(
          "--merge: the output directory {} is one of the shards; merge into another directory",
          out_dir));

  std::vector<ShardOutput> shards;
  shards.reserve(shard_dirs.size());
  for (const auto& dir : shard_dirs) shards.push_back(read_shard(dir));
  const ShardOutput& first = shards.front();
  const std::string first_spec = (fs::path(first.dir) / "sweep.json").string();
  std::map<std::size_t, const ShardOutput*> by_index;
  for (const auto& shard : shards) {
    const std::string spec_path = (fs::path(shard.dir) / "sweep.json").string();
    if (shard.spec != first.spec)
      throw ConfigError(fmt::format(
          "{}: \"{}\" differs from {}: shards of different sweep specs cannot be merged", spec_path,
          first_difference(first.spec, shard.spec), first_spec));
    if (shard.shard.count != first.shard.count)
      throw ConfigError(fmt::format("{}: \"shard\": {} of another split than {} ({})", spec_path,
                                    shard_text(shard.shard), first_spec, shard_text(first.shard)));
    if (const auto [it, added] = by_index.emplace(shard.shard.index, &shard); !added)
      throw ConfigError(fmt::format("{}: \"shard\": {} is given twice (also {})", spec_path,
                                    shard_text(shard.shard), it->second->dir));
  }
  std::vector<std::string> missing;
  for (std::size_t k = 1; k <= first.shard.count; ++k)
    if (!by_index.contains(k)) missing.push_back(shard_text(SweepShard{k, first.shard.count}));
  if (!missing.empty())
    throw ConfigError(fmt::format("--merge: shard{} {} {} missing (give every shard's directory)",
                                  missing.size() == 1 ? "" : "s", fmt::join(missing, ", "),
                                  missing.size() == 1 ? "is" : "are"));

  const std::size_t total = spec_cell_count(first.spec, first_spec);
  std::vector<const Json*> rows(total, nullptr);
  std::vector<const ShardOutput*> owner(total, nullptr);
  for (const auto& shard : shards) {
    const std::string results = (fs::path(shard.dir) / "results.jsonl").string();
    for (const auto& row : shard.rows) {
      if (!row.contains("cell"))
        throw ConfigError(fmt::format("{}: a results row without \"cell\"", results));
      const std::size_t cell = row["cell"].get<std::size_t>();
      if (cell >= total || !in_shard(SweepCell{cell, 0, 0, 0, 0, 0}, shard.shard))
        throw ConfigError(fmt::format("{}: \"cell\": {} is not a cell of shard {} ({} cells)",
                                      results, cell, shard_text(shard.shard), total));
      if (rows[cell] != nullptr)
        throw ConfigError(fmt::format("{}: \"cell\": {} appears twice", results, cell));
      if (row["status"] == "ok") {
        const std::string dir = row.value("dir", std::string());
        if (!is_cell_dir_name(dir))
          throw ConfigError(fmt::format(
              "{}: \"dir\": expected a cell directory \"cells/NNNN\" in the ok row of cell {}, "
              "got \"{}\"",
              results, cell, dir));
        finished_cell_files(fs::path(shard.dir) / dir);  // every cell is checked before copying
      }
      rows[cell] = &row;
      owner[cell] = &shard;
    }
  }
  for (std::size_t cell = 0; cell < total; ++cell) {
    if (rows[cell] != nullptr) continue;
    const SweepShard shard{cell % first.shard.count + 1, first.shard.count};
    throw ConfigError(
        fmt::format("{}: cell {} has no results row (shard {} did not finish: run it again)",
                    (fs::path(by_index.at(shard.index)->dir) / "results.jsonl").string(), cell,
                    shard_text(shard)));
  }

  // Shards checked: from here on this process owns the output directory.
  const OutputDirLock lock(out_dir);
  SweepMergeOutcome outcome;
  outcome.shards = shards.size();
  outcome.cells = total;
  std::vector<Json> merged;
  merged.reserve(total);
  for (std::size_t cell = 0; cell < total; ++cell) {
    const Json& row = *rows[cell];
    if (row["status"] == "ok") {
      const std::string dir = row["dir"].get<std::string>();
      copy_cell(fs::path(owner[cell]->dir) / dir, fs::path(out_dir) / dir);
    } else {
      ++outcome.failed;
    }
    merged.push_back(row);
  }
  write_sweep_tables(out_dir, first.spec, merged);
  return outcome;
}

}  // namespace schedlab
