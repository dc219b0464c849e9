#include <filesystem>
#include <fstream>
#include <set>

#include <fmt/format.h>
#include <catch2/catch.hpp>

#include "schedlab/error.hpp"
#include "schedlab/policy.hpp"
#include "schedlab/simulation.hpp"
#include "schedlab/summary_fields.hpp"
#include "schedlab/sweep.hpp"
#include "schedlab/trace.hpp"
#include "support/builders.hpp"
#include "workflows/fixtures.hpp"

using namespace schedlab;
using namespace schedlab::testing;
using Json = nlohmann::ordered_json;
namespace fs = std::filesystem;

namespace {

std::string spec_error_of(const Json& spec) {
  try {
    parse_sweep_spec(spec, "spec.json");
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "(no error)";
}

const char* const kOutputs[] = {"results.csv", "results.jsonl", "aggregate.csv", "aggregate.jsonl",
                                "sweep.json"};

}  // namespace

TEST_CASE("sweep cells cover the cross product in a fixed order", "[workflows][sweep]") {
  Json json = small_sweep_spec("t.csv");
  json["clusters"] = {"2x8:V100", "4x8:V100"};
  const SweepSpec spec = parse_sweep_spec(json, "spec.json");
  REQUIRE(spec.variants.size() == 2);
  CHECK(spec.variants[1].label == "fifo-b");
  const auto cells = expand_cells(spec);
  REQUIRE(cells.size() == 2 * 1 * 2 * 2 * 2);
  // Seed varies fastest, then load, cluster, trace, variant.
  CHECK(cells[1].seed == 1);
  CHECK(cells[1].load == 0);
  CHECK(cells[2].load == 1);
  CHECK(cells[4].cluster == 1);
  CHECK(cells[8].variant == 1);
  const Json def = cell_definition(spec, cells[7]);
  CHECK(def["cell"] == 7);
  CHECK(def["variant"] == "fifo-a");
  CHECK(def["cluster"] == "4x8:V100");
  CHECK(def["load_scale"].get<double>() == 2.0);
  CHECK(def["seed"] == 2);
  CHECK(cell_dir_name(spec, cells[7]) == "cells/0007");
  CHECK(cell_key(def) ==
        "variant=fifo-a policy=fifo params= trace=t.csv cluster=4x8:V100 load_scale=2 seed=2");
  // Trace paths are normalized: one trace, one name in cell keys.
  Json dotted = small_sweep_spec("./x/../t.csv");
  CHECK(parse_sweep_spec(dotted, "spec.json").traces.front().path == "t.csv");
  // Defaults: one load scale (1) and one seed (1).
  Json minimal = {{"policies", {"fifo"}}, {"traces", {"t.csv"}}, {"clusters", {"1x8"}}};
  const SweepSpec defaults = parse_sweep_spec(minimal, "m.json", "exp");
  CHECK(defaults.load_scales == std::vector<double>{1.0});
  CHECK(defaults.seeds == std::vector<std::uint64_t>{1});
  CHECK(defaults.traces[0].path == "exp/t.csv");  // relative to the spec's directory
  // Seed ranges expand.
  minimal["seeds"] = {"3-5", 9};
  CHECK(parse_sweep_spec(minimal, "m.json").seeds == std::vector<std::uint64_t>{3, 4, 5, 9});
}

TEST_CASE("sweep parameter grids name each variant by its parameters", "[workflows][sweep]") {
  // Uses whichever registered policy declares parameters; fifo has none.
  const PolicyInfo* with_params = nullptr;
  const auto policies = registered_policies();
  for (const auto& p : policies)
    if (!p.params.empty()) with_params = &p;
  if (!with_params) {
    WARN("no registered policy declares parameters; grid expansion checked on errors only");
  } else {
    const auto& param = with_params->params.front();
    Json json = {
        {"policies",
         {{{"name", with_params->name}, {"params", {{param.key, {param.default_value}}}}}}},
        {"traces", {"t.csv"}},
        {"clusters", {"1x8"}}};
    const SweepSpec spec = parse_sweep_spec(json, "spec.json");
    REQUIRE(spec.variants.size() == 1);
    CHECK(spec.variants[0].label ==
          with_params->name + "(" + param.key + "=" + param.default_value + ")");
    CHECK(spec.variants[0].params.at(param.key) == param.default_value);
  }
  Json bad = {{"policies", {{{"name", "fifo"}, {"params", {{"no_such_key", {1, 2}}}}}}},
              {"traces", {"t.csv"}},
              {"clusters", {"1x8"}}};
  const std::string message = spec_error_of(bad);
  CHECK_THAT(message, Catch::StartsWith("spec.json: policies[0]: "));
  CHECK_THAT(message, Catch::Contains("no_such_key"));
}

TEST_CASE("sweep spec errors name the file, the field and the value", "[workflows][sweep]") {
  const Json good = small_sweep_spec("t.csv");
  auto with = [&good](const std::string& key, const Json& value) {
    Json j = good;
    j[key] = value;
    return spec_error_of(j);
  };
  CHECK(with("load_scales", {1, -1}) ==
        "spec.json: load_scales[1]: expected a number in 0.001..1000, got -1");
  CHECK(with("load_scales", {1, 1}) == "spec.json: load_scales[1]: load scale 1 appears twice");
  CHECK(with("seeds", {1, 1}) == "spec.json: seeds[1]: seed 1 appears twice");
  CHECK_THAT(with("seeds", {"5-2"}), Catch::StartsWith("spec.json: seeds[0]: expected a range"));
  CHECK(with("traces", Json::array()) == "spec.json: traces: expected a non-empty list, got []");
  CHECK_THAT(with("clusters", {"0x8"}), Catch::StartsWith("spec.json: clusters[0]: "));
  CHECK_THAT(with("policies", {"no-such-policy"}), Catch::StartsWith("spec.json: policies[0]: "));
  CHECK_THAT(with("polices", {"fifo"}), Catch::StartsWith("spec.json: polices: unknown key"));
  CHECK(with("options", {{"interval_s", 0}}) ==
        "spec.json: options.interval_s: expected seconds > 0, got 0");
  CHECK_THAT(with("options", {{"placement", "nowhere"}}),
             Catch::StartsWith("spec.json: options.placement: "));
  Json no_policies = good;
  no_policies.erase("policies");
  CHECK(spec_error_of(no_policies) == "spec.json: policies: missing (a non-empty list)");
}

TEST_CASE("load scale compresses arrival times around the first submit", "[workflows][sweep]") {
  const Trace trace =
      trace_from_csv("id,submit_time,gpus,duration\na,100,1,10\nb,300,1,10\nc,501,1,10\n");
  const Trace doubled = scale_arrivals(trace, 2.0);
  CHECK(doubled.jobs[0].submit_ms == 100'000);
  CHECK(doubled.jobs[1].submit_ms == 200'000);
  CHECK(doubled.jobs[2].submit_ms == 300'500);
  const Trace halved = scale_arrivals(trace, 0.5);
  CHECK(halved.jobs[1].submit_ms == 500'000);
  CHECK(halved.jobs[2].submit_ms == 902'000);
  CHECK(halved.jobs[2].duration_ms == trace.jobs[2].duration_ms);  // only arrivals change
}

TEST_CASE("mean and 95% confidence interval use Student's t", "[workflows][sweep]") {
  const MeanCi three = mean_ci95({1.0, 2.0, 3.0});
  CHECK(three.mean == Approx(2.0));
  CHECK(three.sd == Approx(1.0));
  CHECK(three.ci95 == Approx(4.30265273 / std::sqrt(3.0)));
  const MeanCi one = mean_ci95({5.0});
  CHECK(one.mean == 5.0);
  CHECK(one.ci95 == 0.0);
  CHECK(student_t_975(1) == Approx(12.7062047));
  CHECK(student_t_975(31) == Approx(2.0395134).epsilon(1e-6));
  CHECK(student_t_975(100) == Approx(1.9839715).epsilon(1e-6));
  CHECK(student_t_975(100000) == Approx(1.9599877).epsilon(1e-6));
  // Aggregation groups rows across seeds.
  auto row = [](std::uint64_t seed, double x) {
    return Json{
        {"policy", "p"}, {"variant", "p"}, {"params", Json::object()},
        {"trace", "t"},  {"cluster", "c"}, {"load_scale", 1},
        {"seed", seed},  {"status", "ok"}, {"summary", {{"x", x}, {"nested", {{"y", 2 * x}}}}}};
  };
  const auto groups = aggregate_sweep({row(1, 1.0), row(2, 3.0)});
  REQUIRE(groups.size() == 1);
  CHECK(groups[0].seeds == std::vector<std::uint64_t>{1, 2});
  CHECK(groups[0].metrics == std::vector<std::string>{"x", "nested.y"});
  CHECK(groups[0].stats.at("x").mean == Approx(2.0));
  CHECK(groups[0].stats.at("x").ci95 == Approx(12.7062047));
  CHECK(groups[0].stats.at("nested.y").mean == Approx(4.0));
}

TEST_CASE("sweeps give identical results for any -j and resume only unfinished cells",
          "[workflows][sweep]") {
  const std::string dir = fresh_temp_dir("sweep");
  const std::string trace_path = write_small_trace(dir);
  const SweepSpec spec = parse_sweep_spec(small_sweep_spec(trace_path), "spec.json");
  SweepRunOptions serial;
  serial.out_dir = dir + "/j1";
  serial.jobs = 1;
  const SweepOutcome first = run_sweep(spec, serial);
  CHECK(first.cells == 8);
  CHECK(first.ran == 8);
  CHECK(first.failed == 0);
  SweepRunOptions parallel = serial;
  parallel.out_dir = dir + "/j2";
  parallel.jobs = 2;
  std::size_t progress_calls = 0;
  parallel.progress = [&progress_calls](const SweepProgress&) { ++progress_calls; };
  run_sweep(spec, parallel);
  CHECK(progress_calls == 9);  // the resume scan plus one per cell
  for (const char* name : kOutputs) {
    INFO(name);
    CHECK(read_text(serial.out_dir + "/" + name) == read_text(parallel.out_dir + "/" + name));
  }
  for (int cell = 0; cell < 8; ++cell)
    for (const char* name : {"summary.json", "jobs.csv", "timeseries.csv", "cell.json"}) {
      const std::string rel = fmt::format("/cells/{:04}/{}", cell, name);
      INFO(rel);
      CHECK(read_text(serial.out_dir + rel) == read_text(parallel.out_dir + rel));
    }

  // Rows are the cells' summaries, in cell order; load 2 makes this trace wait longer.
  const auto rows = read_sweep_results(serial.out_dir + "/results.jsonl");
  REQUIRE(rows.size() == 8);
  const Trace trace = read_trace(trace_path);
  SimulationRequest request;
  request.reproducible = true;
  request.options.seed = 2;
  const auto direct =
      simulate(scale_arrivals(trace, 2.0), parse_cluster_spec(kSmallCluster), request);
  CHECK(rows[3]["load_scale"].get<double>() == 2.0);
  CHECK(rows[3]["seed"] == 2);
  CHECK(rows[3]["summary"] == direct.summary);
  const double wait_load1 = *numeric_at(rows[0]["summary"], "wait_s.mean");
  const double wait_load2 = *numeric_at(rows[2]["summary"], "wait_s.mean");
  CHECK(wait_load1 > 0);
  CHECK(wait_load2 > wait_load1);
  const std::string csv = read_text(serial.out_dir + "/results.csv");
  CHECK_THAT(csv, Catch::StartsWith(
                      "cell,policy,variant,params,trace,cluster,load_scale,seed,status,error,"
                      "cluster.nodes,cluster.gpus,cluster.gpu_types.V100,jobs.submitted"));
  CHECK(count_of(csv, "\n") == 9);
  const std::string aggregate = read_text(serial.out_dir + "/aggregate.csv");
  CHECK(count_of(aggregate, "\n") == 5);  // header + 2 variants x 2 loads
  CHECK_THAT(aggregate, Catch::Contains(",wait_s.mean.mean,wait_s.mean.ci95,"));

  // Interrupted: one cell lost entirely, one cell from another spec, one leftover temp file.
  fs::remove_all(parallel.out_dir + "/cells/0003");
  {
    std::ofstream(parallel.out_dir + "/cells/0005/cell.json") << "{\"cell\": 5, \"seed\": 99}\n";
    std::ofstream(parallel.out_dir + "/cells/0006/.summary.json.tmp.1234") << "partial";
  }
  const SweepOutcome resumed = run_sweep(spec, parallel);
  CHECK(resumed.ran == 2);
  CHECK(resumed.resumed == 6);
  CHECK_FALSE(fs::exists(parallel.out_dir + "/cells/0006/.summary.json.tmp.1234"));
  for (const char* name : kOutputs) {
    INFO(name);
    CHECK(read_text(serial.out_dir + "/" + name) == read_text(parallel.out_dir + "/" + name));
  }
  CHECK(run_sweep(spec, parallel).ran == 0);
  parallel.rerun = true;
  CHECK(run_sweep(spec, parallel).ran == 8);
  fs::remove_all(dir);
}

TEST_CASE("sweep cluster models: seeds draw the failures, file contents are part of a cell",
          "[workflows][sweep]") {
  const std::string dir = fresh_temp_dir("sweep-models");
  const std::string trace_path = write_small_trace(dir);
  fs::create_directories(dir + "/spec");
  {
    std::ofstream(dir + "/spec/c.json")
        << R"({"node_groups": [{"count": 2, "gpus_per_node": 8, "gpu_type": "V100"}]})";
  }
  Json json = small_sweep_spec(trace_path);
  json["policies"] = {"fifo"};
  json["load_scales"] = {1};
  json["seeds"] = {1, 2, 3};
  json["clusters"] = {"c.json"};  // relative to the spec file's directory
  json["options"] = {{"failures", "rate=20000,repair=0.5"},
                     {"checkpoint_interval_s", 600},
                     {"walltime_kill", false},
                     {"node_power", true},
                     {"pue", 1.2}};
  const SweepSpec spec = parse_sweep_spec(json, dir + "/spec/spec.json", dir + "/spec");
  CHECK(spec.clusters == std::vector<std::string>{dir + "/spec/c.json"});
  CHECK(spec.options.failure_rate_per_1000_node_days == 20000);
  CHECK_FALSE(spec.options.failure_seed.has_value());
  CHECK(spec.options.node_power);
  CHECK(spec.options.pue == 1.2);
  const Json normalized = sweep_spec_json(spec);
  CHECK(normalized["options"]["failures"] == "rate=20000,repair=0.5");
  CHECK(normalized["options"]["pue"] == 1.2);

  SweepRunOptions run;
  run.out_dir = dir + "/out";
  run.jobs = 2;
  REQUIRE(run_sweep(spec, run).failed == 0);
  const auto rows = read_sweep_results(run.out_dir + "/results.jsonl");
  REQUIRE(rows.size() == 3);
  // Each seed draws its own failures: the restarts differ between at least two seeds.
  std::set<double> restarts;
  for (const auto& row : rows) {
    const double failures = *numeric_at(row["summary"], "restarts.failures");
    CHECK(failures > 0);
    restarts.insert(failures);
  }
  CHECK(restarts.size() > 1);
  // The aggregate has the metrics' spread across seeds, and no column for the inputs.
  const std::string aggregate = read_text(run.out_dir + "/aggregate.csv");
  CHECK_THAT(aggregate, Catch::Contains(",restarts.failures.mean,restarts.failures.ci95,"));
  CHECK_THAT(aggregate, !Catch::Contains("options.seed"));

  // Changing the cluster file reruns its cells; leaving it alone resumes them.
  CHECK(run_sweep(spec, run).ran == 0);
  {
    std::ofstream(dir + "/spec/c.json")
        << R"({"node_groups": [{"count": 2, "gpus_per_node": 8, "gpu_type": "A100"}]})";
  }
  CHECK(run_sweep(spec, run).ran == 3);

  // Model options are checked like the run command's flags.
  json["clusters"] = {kSmallCluster};
  json["options"] = {{"failures", "rate=1,rate=2"}};
  CHECK(spec_error_of(json) ==
        "spec.json: options.failures: --failures 'rate=1,rate=2': key 'rate' given twice "
        "(expected rate=R[,repair=H][,seed=S])");
  json["options"] = {{"power_off_idle_s", 0.0001}};  // as `run` refuses it
  CHECK(spec_error_of(json) ==
        "spec.json: options.power_off_idle_s: below the clock's resolution of 1 ms, got 0.0001");
  json["options"] = {{"pue", 0}};
  CHECK(spec_error_of(json) == "spec.json: options.pue: expected a number in 1..10, got 0");
  json["options"] = {{"speed_model", "fast"}};
  CHECK(spec_error_of(json) ==
        "spec.json: options.speed_model: --speed-model 'fast': expected off, gpu, comm or full");
  json["options"] = {{"colour", 1}};
  CHECK_THAT(spec_error_of(json), Catch::StartsWith("spec.json: options.colour: unknown key"));
  fs::remove_all(dir);
}

TEST_CASE("sweep tenants: the file resolves against the spec and its contents are part of a cell",
          "[workflows][sweep]") {
  const std::string dir = fresh_temp_dir("sweep-tenants");
  const std::string trace_path = write_small_trace(dir);
  fs::create_directories(dir + "/spec");
  { std::ofstream(dir + "/spec/t.json") << R"({"tenants": [{"name": "default", "quota": 16}]})"; }
  Json json = small_sweep_spec(trace_path);
  json["policies"] = {"fifo"};
  json["load_scales"] = {1};
  json["seeds"] = {1};
  json["options"] = {{"tenants", "t.json"}};  // relative to the spec file's directory
  const SweepSpec spec = parse_sweep_spec(json, dir + "/spec/spec.json", dir + "/spec");
  REQUIRE(spec.options.tenants != nullptr);
  CHECK(spec.options.tenants->text == dir + "/spec/t.json");
  CHECK(sweep_spec_json(spec)["options"]["tenants"] == dir + "/spec/t.json");

  SweepRunOptions run;
  run.out_dir = dir + "/out";
  REQUIRE(run_sweep(spec, run).failed == 0);
  // With tenants, FIFO's summary reports them.
  const auto rows = read_sweep_results(run.out_dir + "/results.jsonl");
  REQUIRE(rows.size() == spec.traces.size() * spec.clusters.size());
  for (const auto& row : rows)
    CHECK(numeric_at(row["summary"], "fairness.entitlement_deficit_gpu_h").has_value());
  // Changing the tenants file reruns the cells; asking for job classes does too.
  CHECK(run_sweep(spec, run).ran == 0);
  { std::ofstream(dir + "/spec/t.json") << R"({"tenants": [{"name": "default", "quota": 8}]})"; }
  CHECK(run_sweep(spec, run).ran == rows.size());
  run.job_classes = {JobClassKind::kSize};
  CHECK(run_sweep(spec, run).ran == rows.size());
  for (const auto& row : read_sweep_results(run.out_dir + "/results.jsonl"))
    CHECK(row["summary"].contains("by_size"));
  CHECK(run_sweep(spec, run).ran == 0);

  json["options"] = {{"tenants", "philly-vc:"}};
  CHECK(spec_error_of(json) ==
        "spec.json: options.tenants: --tenants 'philly-vc:': expected a file after 'philly-vc:'");
  fs::remove_all(dir);
}

TEST_CASE("spec paths through a symlinked directory resolve as the file system does",
          "[workflows][sweep]") {
  const std::string dir = fresh_temp_dir("sweep-symlink");
  fs::create_directories(dir + "/real/sub");
  const std::string trace_path = write_small_trace(dir + "/real/sub");
  std::ofstream(dir + "/real/sub/c.json")
      << R"({"node_groups": [{"count": 2, "gpus_per_node": 8}]})";
  fs::create_directory_symlink(dir + "/real/sub", dir + "/link");
  // link/.. is dir/real, not dir: "../sub/c.json" from link/ is dir/real/sub/c.json.
  Json json = small_sweep_spec("../sub/small.csv");
  json["clusters"] = {"../sub/c.json"};
  const SweepSpec spec = parse_sweep_spec(json, dir + "/link/s.json", dir + "/link");
  CHECK(fs::equivalent(spec.traces.front().path, trace_path));
  CHECK(fs::equivalent(spec.clusters.front(), dir + "/real/sub/c.json"));
  fs::remove_all(dir);
}

TEST_CASE("results rows with mistyped fields are input errors naming line and field",
          "[workflows][sweep]") {
  const std::string dir = fresh_temp_dir("results-rows");
  const std::string row =
      R"({"cell": 0, "policy": "fifo", "variant": "fifo", "params": {}, "trace": "t.csv", )"
      R"("cluster": "2x8", "load_scale": 1, "seed": 1, "status": "ok", "dir": "cells/0000", )"
      R"("summary": {"wait_s": {"mean": 1}}})";
  auto error_with = [&](const std::string& from, const std::string& to) {
    std::string text = row;
    text.replace(text.find(from), from.size(), to);
    std::ofstream(dir + "/results.jsonl") << row << "\n" << text << "\n";
    try {
      read_sweep_results(dir + "/results.jsonl");
    } catch (const ConfigError& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  const std::string at = dir + "/results.jsonl:2: ";
  CHECK(error_with(R"("dir": "cells/0000")", R"("dir": 5)") ==
        at + R"("dir": expected a cell directory (a string), got 5)");
  CHECK(error_with(R"("seed": 1)", R"("seed": -1)") ==
        at + R"("seed": expected an integer >= 0, got -1)");
  CHECK(error_with(R"("seed": 1)", R"("seed": 1e300)") ==
        at + R"("seed": expected an integer >= 0, got 1e+300)");
  CHECK(error_with(R"("load_scale": 1)", R"("load_scale": -1e308)") ==
        at + R"("load_scale": expected a number in 0.001..1000, got -1e+308)");
  CHECK(error_with(R"("cell": 0)", R"("cell": "x")") ==
        at + R"("cell": expected an integer >= 0, got "x")");
  CHECK(error_with(R"("cell": 0)", R"("cell": 1)") == "(no error)");
  CHECK(error_with(R"("status": "ok")", R"("status": 1)") ==
        at + R"("status": expected a string, got 1)");
  CHECK(error_with(R"("params": {})", R"("params": 5)") ==
        at + R"("params": expected an object, got 5)");
  fs::remove_all(dir);
}

TEST_CASE("schedlab sweep runs from flags, prints progress lines and rejects bad input",
          "[workflows][sweep]") {
  const std::string dir = fresh_temp_dir("sweep-cli");
  const std::string trace_path = write_small_trace(dir);
  const std::string out = dir + "/out";
  const std::string base =
      schedlab_binary() + " sweep -t " + shell_quote(trace_path) + " -c 2x8:V100";
  const auto ok = run_command(base + " -p fifo --load 1,1.5 --seeds 1-2 -j 2 --reproducible -o " +
                              shell_quote(out));
  INFO(ok.err);
  REQUIRE(ok.exit_code == 0);
  CHECK(count_of(ok.err, "sweep: [") == 4);  // not a terminal: one line per cell
  CHECK_THAT(ok.out, Catch::Contains("sweep: 4 cells (4 run, 0 resumed, 0 failed)"));
  CHECK(count_of(read_text(out + "/results.csv"), "\n") == 5);
  // A second run resumes everything.
  const auto again =
      run_command(base + " -p fifo --load 1,1.5 --seeds 1-2 --reproducible -o " + shell_quote(out));
  CHECK(again.exit_code == 0);
  CHECK_THAT(again.out, Catch::Contains("(0 run, 4 resumed, 0 failed)"));
  // A list-valued parameter inside a --param grid: ';' inside a value, ',' between values.
  const auto grid = run_command(base + " -p las --param 'las:thresholds=60;600,300' -q -o " +
                                shell_quote(dir + "/las"));
  INFO(grid.err);
  REQUIRE(grid.exit_code == 0);
  const auto las_rows = read_sweep_results(dir + "/las/results.jsonl");
  REQUIRE(las_rows.size() == 2);
  CHECK(las_rows[0]["variant"] == "las(thresholds=60;600)");
  CHECK(las_rows[1]["variant"] == "las(thresholds=300)");
  CHECK(las_rows[0]["summary"] != las_rows[1]["summary"]);

  // Bad input: exit 2, one line on stderr naming the field, nothing written.
  const std::string bad_out = dir + "/bad";
  const auto bad = run_command(base + " -p fifo --load 1,-2 -o " + shell_quote(bad_out));
  CHECK(bad.exit_code == 2);
  CHECK(bad.err == "command line: load_scales[1]: expected a number in 0.001..1000, got -2.0\n");
  CHECK_FALSE(fs::exists(bad_out));
  const std::string spec_path = dir + "/spec.json";
  std::ofstream(spec_path)
      << "{\"policies\": [\"fifo\"], \"traces\": [\"small.csv\"], \"clusters\": [\"2x8\"],";
  const auto broken = run_command(schedlab_binary() + " sweep " + shell_quote(spec_path) + " -o " +
                                  shell_quote(bad_out));
  CHECK(broken.exit_code == 2);
  CHECK_THAT(broken.err, Catch::StartsWith(spec_path + ": not valid JSON"));
  CHECK(count_of(broken.err, "\n") == 1);
  CHECK_FALSE(fs::exists(bad_out));
  // The same spec completed runs, with trace paths relative to the spec file.
  std::ofstream(spec_path)
      << "{\"policies\": [\"fifo\"], \"traces\": [\"small.csv\"], \"clusters\": [\"2x8\"]}";
  const auto from_file = run_command(schedlab_binary() + " sweep " + shell_quote(spec_path) +
                                     " -q -o " + shell_quote(dir + "/from-file"));
  CHECK(from_file.exit_code == 0);
  CHECK(from_file.err.empty());
  fs::remove_all(dir);
}
