#include <fmt/format.h>

#include "schedlab/simulation.hpp"
#include "schedlab/summary_fields.hpp"

namespace schedlab {

namespace {

std::string num(const nlohmann::ordered_json& value, int decimals) {
  if (value.is_number_integer()) return fmt::format("{}", value.get<std::int64_t>());
  if (value.is_number_unsigned()) return fmt::format("{}", value.get<std::uint64_t>());
  if (value.is_number()) return fmt::format("{:.{}f}", value.get<double>(), decimals);
  return value.dump();
}

}  // namespace

std::string format_summary_table(const nlohmann::ordered_json& s) {
  std::string out;
  auto row = [&out](const std::string& label, const std::string& value) {
    out += fmt::format("  {:<24} {}\n", label, value);
  };
  out += fmt::format("schedlab: policy {} on {}\n", s.at("policy").get<std::string>(),
                     summary_trace_path(s));
  row("cluster", fmt::format("{} nodes, {} GPUs", num(s["cluster"]["nodes"], 0),
                             num(s["cluster"]["gpus"], 0)));
  row("jobs", fmt::format("{} submitted, {} completed, {} rejected", num(s["jobs"]["submitted"], 0),
                          num(s["jobs"]["completed"], 0), num(s["jobs"]["rejected"], 0)));
  row("makespan", num(s["makespan_s"], 3) + " s");
  for (const char* key : {"wait_s", "jct_s"}) {
    const auto& d = s[key];
    row(key == std::string("wait_s") ? "wait (s)" : "job completion time (s)",
        fmt::format("mean {}  p50 {}  p95 {}  p99 {}  max {}", num(d["mean"], 1), num(d["p50"], 1),
                    num(d["p95"], 1), num(d["p99"], 1), num(d["max"], 1)));
  }
  const auto& b = s["bounded_slowdown"];
  row("bounded slowdown", fmt::format("mean {}  p50 {}  p95 {}  max {}", num(b["mean"], 2),
                                      num(b["p50"], 2), num(b["p95"], 2), num(b["max"], 2)));
  row("utilization", fmt::format("{:.2f} %", s["utilization"].get<double>() * 100.0));
  const auto& g = s["gpu_hours"];
  row("GPU-hours", fmt::format("capacity {}  busy {}  idle {}", num(g["capacity"], 1),
                               num(g["busy"], 1), num(g["idle"], 1)));
  row("idle GPU-h while waiting", num(g["idle_while_jobs_wait"], 1));
  const auto& r = s["restarts"];
  row("restarts",
      fmt::format("{} (preemptions {}, walltime kills {}), lost {} GPU-h", num(r["total"], 0),
                  num(r["preemptions"], 0), num(r["walltime_kills"], 0), num(g["lost"], 1)));
  const auto& e = s["energy_kwh"];
  row("energy (kWh)", fmt::format("total {}  GPU busy {}  GPU idle {}", num(e["total"], 1),
                                  num(e["gpu_busy"], 1), num(e["gpu_idle"], 1)));
  const auto& en = s["engine"];
  row("engine", fmt::format("{} events, {} instants, {} s", num(en["events"], 0),
                            num(en["instants"], 0), num(en["wall_s"], 3)));
  return out;
}

}  // namespace schedlab
