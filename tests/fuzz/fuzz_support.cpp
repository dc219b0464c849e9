#include "fuzz_support.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "schedlab/network_topology.hpp"
#include "schedlab/simulation.hpp"
#include "schedlab/trace.hpp"
#include "schedlab/trace_stats.hpp"
#include "schedlab/trace_writer.hpp"

namespace schedlab::fuzz {

namespace {

namespace fs = std::filesystem;

void remove_scratch_dir() {
  std::error_code ec;
  fs::remove_all(scratch_dir(), ec);
}

// Whether two jobs agree on every field the native CSV holds (strings compared as text).
bool same_job(const Trace& a, const JobSpec& x, const Trace& b, const JobSpec& y) {
  auto same_text = [&](StringId p, StringId q) { return a.strings.str(p) == b.strings.str(q); };
  const auto& profile_x = a.speed_profiles.at(x.speed_profile);
  const auto& profile_y = b.speed_profiles.at(y.speed_profile);
  if (profile_x.size() != profile_y.size()) return false;
  for (std::size_t i = 0; i < profile_x.size(); ++i)
    if (!same_text(profile_x[i].first, profile_y[i].first) ||
        profile_x[i].second != profile_y[i].second)
      return false;
  return x.id == y.id && x.submit_ms == y.submit_ms && x.gpus == y.gpus &&
         x.duration_ms == y.duration_ms && x.walltime_ms == y.walltime_ms &&
         x.priority == y.priority && same_text(x.user, y.user) && same_text(x.tenant, y.tenant) &&
         same_text(x.gpu_type, y.gpu_type) && same_text(x.status, y.status) &&
         x.preemptible == y.preemptible && x.comm == y.comm &&
         x.checkpoint_interval_ms == y.checkpoint_interval_ms &&
         x.restart_overhead_ms == y.restart_overhead_ms;
}

// Both jobs' fields, for the message when they differ.
std::string job_difference(const Trace& a, const JobSpec& x, const Trace& b, const JobSpec& y) {
  auto profile = [](const Trace& t, const JobSpec& job) {
    std::string text;
    for (const auto& [type, speed] : t.speed_profiles.at(job.speed_profile))
      text += fmt::format("{}={};", t.strings.str(type), speed);
    return text;
  };
  const auto fields = [&](const Trace& t, const JobSpec& j) {
    return fmt::format(
        "id={} submit={} gpus={} duration={} walltime={} priority={} user={} tenant={} "
        "gpu_type={} status={} preemptible={} comm={} checkpoint={} restart={} speeds={}",
        j.id, j.submit_ms, j.gpus, j.duration_ms, j.walltime_ms, j.priority, t.strings.str(j.user),
        t.strings.str(j.tenant), t.strings.str(j.gpu_type), t.strings.str(j.status), j.preemptible,
        comm_sensitivity_name(j.comm), j.checkpoint_interval_ms, j.restart_overhead_ms,
        profile(t, j));
  };
  return fields(a, x) + "\n  read back as\n" + fields(b, y);
}

// The writer's contract: reading the native CSV of a trace gives back identical jobs.
void check_native_round_trip(const Trace& trace) {
  const std::string text = format_native_trace(trace);
  Trace again;
  try {
    again = read_native_trace("round-trip.csv", text);
  } catch (const InputError& e) {
    fail(fmt::format("the native CSV of a trace read back with an error: {}\n{}", e.what(), text));
  }
  if (again.jobs.size() != trace.jobs.size())
    fail(fmt::format("the native CSV of {} jobs read back as {} jobs", trace.jobs.size(),
                     again.jobs.size()));
  for (std::size_t i = 0; i < trace.jobs.size(); ++i) {
    if (!same_job(trace, trace.jobs[i], again, again.jobs[i]))
      fail(fmt::format("job {} changed through the native CSV:\n{}", i,
                       job_difference(trace, trace.jobs[i], again, again.jobs[i])));
  }
}

}  // namespace

void quiet_logging() {
  spdlog::set_level(spdlog::level::off);
}

const std::string& scratch_dir() {
  static const std::string dir = [] {
    const char* tmp = std::getenv("TMPDIR");
    const fs::path base = tmp != nullptr && *tmp != '\0' ? fs::path(tmp) : fs::path("/tmp");
    const fs::path path = base / fmt::format("schedlab-fuzz-{}", ::getpid());
    fs::create_directories(path);
    return path.string();
  }();
  // Registered after `dir` is constructed, so it runs before `dir` is destroyed.
  static const bool removed_at_exit = std::atexit(remove_scratch_dir) == 0;
  (void)removed_at_exit;
  return dir;
}

std::string write_scratch_file(const std::string& name, std::string_view bytes) {
  const std::string path = scratch_dir() + "/" + name;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) fail("cannot write the scratch file " + path);
  return path;
}

std::vector<std::string_view> split_parts(std::string_view text, std::size_t max_parts) {
  std::vector<std::string_view> parts;
  while (parts.size() + 1 < max_parts) {
    const auto at = text.find(kPartSeparator);
    if (at == std::string_view::npos) break;
    parts.push_back(text.substr(0, at));
    text.remove_prefix(at + kPartSeparator.size());
  }
  parts.push_back(text);
  return parts;
}

void fail(const std::string& what) {
  std::fprintf(stderr, "fuzz property failed: %s\n", what.c_str());
  std::fflush(stderr);
  std::abort();
}

void exercise_trace(const Trace& trace) {
  const TraceStats stats = compute_trace_stats(trace);
  (void)trace_stats_json(trace, stats);
  (void)format_trace_stats(trace, stats);
  check_native_round_trip(trace);

  Trace head;
  head.path = trace.path;
  head.format = trace.format;
  head.strings = trace.strings;
  head.speed_profiles = trace.speed_profiles;
  head.jobs.assign(trace.jobs.begin(),
                   trace.jobs.begin() +
                       static_cast<std::ptrdiff_t>(std::min(trace.jobs.size(), kMaxSimulatedJobs)));
  static const ClusterSpec one_node = parse_cluster_spec("1x8");
  SimulationRequest request;
  request.policy = "fifo";
  request.reproducible = true;
  request.files = false;
  // The timeseries rows are collected even without files, one per interval of simulated time:
  // rows 3 years wide keep a trace that spans millennia (times reach 9e15 ms) under 10^6 rows.
  request.options.timeseries_interval_ms = 100'000'000'000;
  (void)simulate(head, one_node, request);
}

void exercise_cluster_spec(const ClusterSpec& spec) {
  check_cluster_size(spec);
  std::int64_t gpus = 0;
  for (const auto& group : spec.groups)
    gpus += static_cast<std::int64_t>(group.count) * group.gpus_per_node;
  if (gpus > kMaxBuiltClusterGpus) return;
  const Cluster cluster(spec);
  (void)cluster.topology();
}

}  // namespace schedlab::fuzz
