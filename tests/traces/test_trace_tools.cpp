// Filters, statistics, writers (native and SWF round trips), civil time, detection, and the
// synthetic generator's extensions and fitting.
#include <catch2/catch.hpp>

#include <fstream>
#include <iterator>

#include <fmt/format.h>

#include "schedlab/error.hpp"
#include "schedlab/fingerprint.hpp"
#include "schedlab/reader_kit.hpp"
#include "schedlab/synthetic.hpp"
#include "schedlab/trace_filter.hpp"
#include "schedlab/trace_stats.hpp"
#include "schedlab/trace_writer.hpp"
#include "support/builders.hpp"
#include "traces/trace_test_util.hpp"

using namespace schedlab;
using namespace schedlab::testing;

namespace {

const char* kSample =
    "id,submit_time,gpus,duration,walltime,priority,user,tenant,gpu_type,preemptible,"
    "checkpoint_interval,restart_overhead,status,comm,speeds\n"
    "a,0,1,10.5,20,3,alice,vc1,V100,1,,,Pass,high,V100=1;A100=2.5\n"
    "b,5.25,4,100,,0,bob,vc2,,0,60,5,Killed,none,\n"
    "c,7,8,3600,7200,-1,\"o'neil, jr\",vc1,A100,1,30,,Failed,,A100=0.3333333333333333\n"
    "d,7,2,0.001,,0,alice,vc2,,1,,,,low,V100=1;A100=2.5\n";

// A job's speed profile as text, "TYPE=SPEED;..." ("" for none).
std::string speeds_text(const Trace& t, const JobSpec& job) {
  std::string out;
  for (const auto& [type, speed] : t.speed_profiles[job.speed_profile])
    out += fmt::format("{}={};", t.strings.str(type), speed);
  return out;
}

bool same_jobs(const Trace& a, const Trace& b) {
  if (a.jobs.size() != b.jobs.size()) return false;
  for (std::size_t i = 0; i < a.jobs.size(); ++i) {
    const JobSpec& x = a.jobs[i];
    const JobSpec& y = b.jobs[i];
    if (x.id != y.id || x.submit_ms != y.submit_ms || x.gpus != y.gpus ||
        x.duration_ms != y.duration_ms || x.walltime_ms != y.walltime_ms ||
        x.priority != y.priority || x.preemptible != y.preemptible ||
        x.checkpoint_interval_ms != y.checkpoint_interval_ms ||
        x.restart_overhead_ms != y.restart_overhead_ms ||
        a.strings.str(x.user) != b.strings.str(y.user) ||
        a.strings.str(x.tenant) != b.strings.str(y.tenant) ||
        a.strings.str(x.gpu_type) != b.strings.str(y.gpu_type) ||
        a.strings.str(x.status) != b.strings.str(y.status) || x.comm != y.comm ||
        speeds_text(a, x) != speeds_text(b, y))
      return false;
  }
  return true;
}

}  // namespace

TEST_CASE("civil times: formats, offsets, leap days, fractions", "[traces]") {
  using trace_kit::parse_civil_time_ms;
  CHECK(parse_civil_time_ms("1970-01-01 00:00:00") == 0);
  CHECK(parse_civil_time_ms("2017-10-07 01:11:39") == 1'507'338'699'000);
  CHECK(parse_civil_time_ms("2017-10-07T01:11:39Z") == 1'507'338'699'000);
  CHECK(parse_civil_time_ms("2023-03-01 00:18:22+08:00") ==
        parse_civil_time_ms("2023-02-28 16:18:22"));
  CHECK(parse_civil_time_ms("2023-03-01 00:18:22-0130") ==
        parse_civil_time_ms("2023-03-01 01:48:22"));
  CHECK(parse_civil_time_ms("2020-02-29 12:00:00.2506") ==
        *parse_civil_time_ms("2020-02-29 12:00:00") + 251);
  CHECK_FALSE(parse_civil_time_ms("2019-02-29 12:00:00"));
  CHECK_FALSE(parse_civil_time_ms("2020-01-01 24:00:00"));
  CHECK_FALSE(parse_civil_time_ms("2020-01-01 10:00"));
  CHECK_FALSE(parse_civil_time_ms("2020-01-01 10:00:00 PDT"));
  CHECK(trace_kit::format_civil_time(1'507'338'699'000) == "2017-10-07 01:11:39");
  CHECK(trace_kit::format_civil_time(-1000) == "1969-12-31 23:59:59");
}

TEST_CASE("auto-detection picks each format from its header or content", "[traces]") {
  CHECK(detected("x.csv", "job_id,submission_time,duration,num_gpu\n") == "itp");
  CHECK(detected("x.csv",
                 "job_id,submission_time,num_iteration,model_name,deadline,batch_size,num_gpu,"
                 "duration\n") == "itp");
  CHECK(detected("x.csv", "timestamp,duration,num_gpus,gpu_time,cluster\n") == "philly-csv");
  CHECK(detected("x.csv", "app_id,submit_time,service,num_jobs,sleep_time,model_name\n") ==
        "philly-vc");
  CHECK(detected("x.csv",
                 "\xEF\xBB\xBFname,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,"
                 "creation_time,deletion_time,scheduled_time\r\n") == "alibaba-openb");
  CHECK(detected("x.swf", "; Version: 2.2\n;\n1 0 -1 10 4 -1 -1 4 100 -1 1 1 1 -1 -1 -1 -1 -1\n") ==
        "swf");
  CHECK(detected("x.csv", "id,submit_time,gpus,duration\n") == "native");
  CHECK(detected("x.csv", "1,2,3\n") == "native");
}

TEST_CASE("filters: window, tenant, user, status, limit, counted as left out", "[traces]") {
  const Trace base = trace_from_csv(kSample);
  {
    Trace t = base;
    apply_trace_filter(t, parse_trace_filter({"from=5", "to=7s"}));
    REQUIRE(t.jobs.size() == 1);
    CHECK(t.jobs[0].id == "b");
    CHECK(t.jobs[0].submit_ms == 5250);  // times are not shifted
    CHECK(skipped_count(t, "filtered out: from") == 1);
    CHECK(skipped_count(t, "filtered out: to") == 2);
  }
  {
    Trace t = base;
    apply_trace_filter(t, parse_trace_filter({"tenant=vc1", "status=Pass,Failed"}));
    REQUIRE(t.jobs.size() == 2);
    CHECK(t.jobs[1].id == "c");
    CHECK(skipped_count(t, "filtered out: tenant") == 2);
  }
  {
    Trace t = base;
    apply_trace_filter(t, parse_trace_filter({"user=alice", "limit=1"}));
    REQUIRE(t.jobs.size() == 1);
    CHECK(t.jobs[0].id == "a");
    CHECK(skipped_count(t, "filtered out: limit") == 1);
  }
  {
    // limit keeps the earliest submissions, ties in trace order, and keeps trace order.
    Trace t = trace_from_csv("id,submit_time,gpus,duration\nz,9,1,1\ny,3,1,1\nx,3,1,1\nw,1,1,1\n");
    apply_trace_filter(t, parse_trace_filter({"limit=2"}));
    REQUIRE(t.jobs.size() == 2);
    CHECK(t.jobs[0].id == "y");
    CHECK(t.jobs[1].id == "w");
  }
  CHECK_THROWS_WITH(
      parse_trace_filter({"size=3"}),
      "--filter 'size=3': unknown key 'size' (known: from, to, tenant, user, status, limit)");
  CHECK_THROWS_WITH(
      parse_trace_filter({"from=abc"}),
      "--filter 'from=abc': expected a time >= 0 in seconds, or with a unit: 90s, 30m, 12h, 2d");
  CHECK_THROWS_WITH(parse_trace_filter({"limit=0"}),
                    "--filter 'limit=0': expected an integer >= 1");
  CHECK_THROWS_WITH(parse_trace_filter({"from=1h", "to=30m"}),
                    "--filter: the window is empty (to 1800 s <= from 3600 s)");
  Trace t = base;
  CHECK_THROWS_WITH(apply_trace_filter(t, parse_trace_filter({"tenant=nope"})),
                    "test.csv: --filter left no jobs (4 filtered out: tenant)");
}

TEST_CASE("stats: histogram, percentiles, GPU-hours, peak demand without queueing", "[traces]") {
  const Trace t = trace_from_csv(
      "id,submit_time,gpus,duration,status\n"
      "a,0,1,10,Pass\nb,5,4,10,Killed\nc,10,2,5,Pass\nd,15,8,1,\n");
  const TraceStats s = compute_trace_stats(t);
  CHECK(s.jobs == 4);
  CHECK(s.last_submit_ms == 15'000);
  CHECK(s.last_end_ms == 16'000);
  CHECK(s.gpu_histogram ==
        std::vector<std::pair<std::int32_t, std::uint64_t>>{{1, 1}, {2, 1}, {4, 1}, {8, 1}});
  CHECK(s.duration_p50_s == Approx(7.5));
  CHECK(s.duration_max_s == 10.0);
  CHECK(s.gpu_hours == Approx((10 + 40 + 10 + 8) / 3600.0));
  // a ends at 10 exactly when c starts (ends count first: 6 GPUs at 10); b and c end at 15 when
  // d starts, so the peak is d's 8 GPUs alone at 15.
  CHECK(s.peak_gpus == 8);
  CHECK(s.peak_at_ms == 15'000);
  REQUIRE(s.statuses.size() == 3);
  CHECK(s.statuses[0].first == "Pass");
  CHECK(s.statuses[0].second == 2);
  CHECK(s.statuses[2].first == "");
  const auto json = trace_stats_json(t, s);
  CHECK(json["gpus_per_job"]["4"] == 1);
  CHECK(json["peak_gpu_demand"]["gpus"] == 8);
  const Trace u = trace_from_csv("id,submit_time,gpus,duration\na,0,3,10\nb,10,2,1\nc,9,4,2\n");
  CHECK(compute_trace_stats(u).peak_gpus == 7);
  CHECK(compute_trace_stats(u).peak_at_ms == 9'000);
}

TEST_CASE("native writer is lossless: every field survives a round trip", "[traces]") {
  const Trace original = trace_from_csv(kSample);
  const std::string text = format_native_trace(original);
  const Trace again = read_native_trace("again.csv", text);
  CHECK(same_jobs(original, again));
  CHECK(format_native_trace(again) == text);
  CHECK(text.substr(0, text.find('\n')).ends_with(",status,comm,speeds"));
  CHECK(text.find(",Failed,medium,A100=0.3333333333333333\n") != std::string::npos);
  // Unused optional columns are left out.
  const Trace plain = trace_from_csv("id,submit_time,gpus,duration\nx,1.5,2,3\n");
  CHECK(format_native_trace(plain) == "id,submit_time,gpus,duration\nx,1.500,2,3.000\n");
}

TEST_CASE("SWF writer: shared fields round-trip, what SWF cannot hold is reported", "[traces]") {
  const std::string swf =
      "; Version: 2.2\n"
      "1 0 -1 10 4 -1 -1 4 100 -1 1 7 2 -1 -1 -1 -1 -1\n"
      "2 5 -1 20 8 -1 -1 8 -1 -1 0 3 2 -1 -1 -1 -1 -1\n"
      "3 9 -1 30 1 -1 -1 1 40 -1 5 7 -1 -1 -1 -1 -1 -1\n";
  const Trace from_swf = read_as("swf", "in.swf", swf);
  SwfWriteReport report;
  const std::string out = format_swf_trace(from_swf, &report);
  const Trace again = read_as("swf", "out.swf", out);
  CHECK(same_jobs(from_swf, again));
  CHECK(report.times_rounded == 0);
  CHECK_FALSE(report.jobs_renumbered);
  // SWF -> native -> SWF keeps the shared fields too.
  const Trace via_native = read_native_trace("n.csv", format_native_trace(from_swf));
  CHECK(same_jobs(from_swf, read_as("swf", "o2.swf", format_swf_trace(via_native))));

  const Trace sample = trace_from_csv(kSample);
  SwfWriteReport lossy;
  const std::string text = format_swf_trace(sample, &lossy);
  CHECK(lossy.jobs_renumbered);
  CHECK(lossy.times_rounded == 3);      // 10.5 s, 5.25 s, 0.001 s
  CHECK(lossy.runs_raised_to_1s == 1);  // 0.001 s
  CHECK(lossy.users_mapped == 3);
  CHECK(lossy.groups_mapped == 2);
  CHECK(lossy.fields_dropped == 4);  // a: comm, speeds; b: preemptible, checkpoint; c; d: comm
  CHECK(text.find("; Note: user 3 = o'neil, jr\n") != std::string::npos);
  const Trace back = read_as("swf", "s.swf", text);
  REQUIRE(back.jobs.size() == 4);
  CHECK(back.jobs[0].duration_ms == 11'000);  // 10.5 rounded half up
  CHECK(back.jobs[0].walltime_ms == 20'000);
  CHECK(back.strings.str(back.jobs[0].status) == "1");  // Pass
  CHECK(back.strings.str(back.jobs[1].status) == "5");  // Killed
  CHECK(back.strings.str(back.jobs[2].status) == "0");  // Failed
  CHECK(back.strings.str(back.jobs[3].status) == "1");  // none: replayed as completed
  CHECK(back.strings.str(back.jobs[2].user) == "3");
}

TEST_CASE("SWF writer: job numbers count from 1, jobs without a status are completed (1)",
          "[traces]") {
  // Integer ids that are not the counter 1..N (gen numbers from 0) are replaced by it.
  const Trace zero_based = trace_from_csv(
      "id,submit_time,gpus,duration\n"
      "0,0,1,10\n"
      "1,5,2,20\n"
      "9,7,1,30\n");
  SwfWriteReport report;
  const std::string text = format_swf_trace(zero_based, &report);
  CHECK(report.jobs_renumbered);
  CHECK(report.statuses_unmapped == 0);
  CHECK(text.find("\n1 0 -1 10 1 -1 -1 1 -1 -1 1 -1 -1 -1 -1 -1 -1 -1\n") != std::string::npos);
  CHECK(text.find("\n2 5 -1 20 2 -1 -1 2 -1 -1 1 -1 -1 -1 -1 -1 -1 -1\n") != std::string::npos);
  CHECK(text.find("\n3 7 -1 30 1 -1 -1 1 -1 -1 1 -1 -1 -1 -1 -1 -1 -1\n") != std::string::npos);
  const Trace back = read_as("swf", "z.swf", text);
  REQUIRE(back.jobs.size() == 3);
  CHECK(back.jobs[0].id == "1");
  CHECK(back.jobs[2].id == "3");
  // Ids that already are the counter are kept, without a renumbering note.
  SwfWriteReport kept;
  format_swf_trace(back, &kept);
  CHECK_FALSE(kept.jobs_renumbered);
}

TEST_CASE("SWF writer: only canonical integer ids and names are kept as numbers", "[traces]") {
  // "007" and "7" would both become job 7; "+8" is not how SWF writes 8.
  const Trace padded = trace_from_csv(
      "id,submit_time,gpus,duration,user,tenant,status\n"
      "007,0,1,10,7,g,2\n"
      "7,1,1,10,07,\"line\nbreak\\\",3\n"
      "+8,2,1,10,7,g,COMPLETED\n");
  SwfWriteReport report;
  const std::string text = format_swf_trace(padded, &report);
  CHECK(report.jobs_renumbered);
  CHECK(report.users_mapped == 2);       // "7" and "07" stay two users
  CHECK(report.statuses_unmapped == 2);  // 2 and 3 are partial-execution codes
  CHECK(text.find("; Note: group 2 = line\\nbreak\\\\\n") != std::string::npos);
  // Every header line is a comment: the newline in the group name did not end its note.
  std::size_t records = 0;
  for (std::size_t at = 0; at < text.size();) {
    const std::size_t end = text.find('\n', at);
    if (text[at] != ';') ++records;
    at = end + 1;
  }
  CHECK(records == 3);
  const Trace back = read_as("swf", "s.swf", text);
  REQUIRE(back.jobs.size() == 3);  // none read back as a partial-execution record
  CHECK(back.jobs[0].id == "1");
  CHECK(back.jobs[2].id == "3");
  CHECK(back.strings.str(back.jobs[0].user) != back.strings.str(back.jobs[1].user));
  CHECK(back.jobs[0].status == 0);
  CHECK(back.strings.str(back.jobs[2].status) == "1");
}

TEST_CASE("write_trace_file: plain and gzip, readable back", "[traces]") {
  const std::string dir = fresh_temp_dir("write");
  const Trace t = trace_from_csv(kSample);
  write_trace_file(dir + "/t.csv.gz", format_native_trace(t));
  CHECK(same_jobs(t, read_trace(dir + "/t.csv.gz")));
  CHECK_THROWS_AS(write_trace_file(dir + "/missing/t.csv", "x"), ConfigError);
}

TEST_CASE("a truncated gzip file is an input error, not a short trace", "[traces]") {
  const std::string dir = fresh_temp_dir("truncated-gz");
  const Trace t = trace_from_csv(kSample);
  write_trace_file(dir + "/t.csv.gz", format_native_trace(t));
  std::ifstream in(dir + "/t.csv.gz", std::ios::binary);
  const std::string whole((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  REQUIRE(whole.size() > 40);
  write_text(dir + "/cut.csv.gz", whole.substr(0, whole.size() - 12));
  try {
    read_trace(dir + "/cut.csv.gz");
    FAIL("a truncated gzip stream was read as a trace");
  } catch (const TraceError& e) {
    CHECK(std::string(e.what()).starts_with(dir + "/cut.csv.gz: corrupt gzip data"));
  }
}

TEST_CASE("a directory whose files share a stem prefixes ids with whole file names", "[traces]") {
  const std::string dir = fresh_temp_dir("same-stem");
  const std::string csv = "id,submit_time,gpus,duration\n1,0,1,10\n";
  write_text(dir + "/a.csv", csv);
  write_trace_file(dir + "/a.csv.gz", csv);
  const Trace t = read_trace(dir);
  REQUIRE(t.jobs.size() == 2);
  CHECK(t.jobs[0].id == "a.csv/1");
  CHECK(t.jobs[1].id == "a.csv.gz/1");
}

TEST_CASE("philly-json: deeply nested values give a message, not a stack overflow", "[traces]") {
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  const std::string text = "[{\"jobid\": \"a\", \"status\": \"Pass\", \"submitted_time\": " + deep +
                           ", \"attempts\": []}]";
  try {
    read_as("philly-json", "j.json", text);
    FAIL("a nested array was read as a submit time");
  } catch (const TraceError& e) {
    // The nesting limit of every JSON input (kMaxJsonDepth) stops it before the key is read.
    CHECK(std::string(e.what()) == "j.json:1: JSON nested deeper than 512 levels");
  }
}

TEST_CASE("synthetic: times beyond the clock's range are refused, not overflowed", "[traces]") {
  SyntheticTraceSpec spec;
  spec.jobs = 100;
  spec.mean_interarrival_s = 1e300;
  CHECK_THROWS_WITH(generate_synthetic_trace(spec),
                    "synthetic trace: mean inter-arrival 1e+300 s is above 1e+12 s");
  spec.mean_interarrival_s = 1e11;  // allowed, but 100 jobs would end past 1e12 s
  CHECK_THROWS_WITH(generate_synthetic_trace(spec),
                    Catch::Matchers::StartsWith("synthetic trace: job ") &&
                        Catch::Matchers::Contains("would be submitted after 1e+12 s"));
  spec.mean_interarrival_s = 60;
  spec.duration_median_s = 1e300;
  CHECK_THROWS_WITH(generate_synthetic_trace(spec),
                    "synthetic trace: log-normal durations need 0 < median <= 1e+12 s and 0 <= "
                    "sigma <= 100 (got 1e+300 s, 1.5)");
  spec.duration_median_s = 1800;
  spec.duration_max_s = 1e300;
  CHECK_THROWS_WITH(generate_synthetic_trace(spec),
                    "synthetic trace: duration clamps [1, 1e+300] s must satisfy 0 < min <= max "
                    "<= 1e+12");
  spec.duration_max_s = 86400;
  // Bursts far shorter than the gaps between arrivals would take billions of steps.
  spec.arrival = SyntheticTraceSpec::Arrival::kBursty;
  spec.burst_mean_s = 1e-9;
  CHECK_THROWS_WITH(generate_synthetic_trace(spec),
                    Catch::Matchers::StartsWith("synthetic trace: bursts of 1e-09 s") &&
                        Catch::Matchers::Contains("a cycle must be at least 1/10000 of that"));
  spec.burst_mean_s = 600;
  CHECK(generate_synthetic_trace(spec).jobs.size() == 100);
  // Weights that overflow their sum, negative load GPUs, too many jobs.
  spec.gang_mix = {{1, 1e308}, {2, 1e308}};
  CHECK_THROWS_WITH(
      generate_synthetic_trace(spec),
      "synthetic trace: the gang-size weights sum to inf (expected a finite sum > 0)");
  spec.gang_mix = {{1, 1}};
  spec.load_gpus = -5;
  CHECK_THROWS_WITH(generate_synthetic_trace(spec), "synthetic trace: load GPUs -5 is not >= 0");
  spec.load_gpus = 0;
  spec.jobs = 50'000'001;
  CHECK_THROWS_WITH(generate_synthetic_trace(spec),
                    "synthetic trace: 50000001 jobs is above the limit of 50000000");
}

TEST_CASE("synthetic defaults are unchanged, extensions are seeded and fit", "[traces]") {
  // Pinned outputs of the generator before its extensions (benchmarks depend on them).
  SyntheticTraceSpec spec;
  spec.jobs = 1000;
  spec.seed = 7;
  const std::string csv = to_native_csv(generate_synthetic_trace(spec));
  CHECK(csv.size() == 24594);
  CHECK(fingerprint_of(csv) == 1219026136787881769ULL);
  CHECK(csv.starts_with("id,submit_time,gpus,duration\n0,0.000,8,27070.931\n1,133.489,1,"));
  CHECK(format_native_trace(generate_synthetic_trace(spec)) == csv);
  spec.load_gpus = 256;
  spec.seed = 3;
  spec.jobs = 500;
  const std::string loaded = to_native_csv(generate_synthetic_trace(spec));
  CHECK(loaded.size() == 12188);
  CHECK(fingerprint_of(loaded) == 11114786084193388691ULL);

  SyntheticTraceSpec extra;
  extra.jobs = 20'000;
  extra.seed = 11;
  extra.arrival = SyntheticTraceSpec::Arrival::kBursty;
  extra.mean_interarrival_s = 10.0;
  extra.burst_factor = 20.0;
  extra.burst_mean_s = 60.0;
  extra.priority_mix = {{0, 0.75}, {5, 0.25}};
  extra.users = 50;
  extra.tenants = 4;
  const Trace a = generate_synthetic_trace(extra);
  CHECK(format_native_trace(a) == format_native_trace(generate_synthetic_trace(extra)));
  // Mean inter-arrival close to 10 s; bursty: the gaps' coefficient of variation is above 1.
  double sum = 0, sum_sq = 0;
  std::uint64_t high = 0;
  for (std::size_t i = 1; i < a.jobs.size(); ++i) {
    const double gap = static_cast<double>(a.jobs[i].submit_ms - a.jobs[i - 1].submit_ms) / 1000.0;
    sum += gap;
    sum_sq += gap * gap;
  }
  for (const auto& j : a.jobs) high += j.priority == 5 ? 1 : 0;
  const double n = static_cast<double>(a.jobs.size() - 1);
  const double mean = sum / n;
  CHECK(mean == Approx(10.0).epsilon(0.1));
  CHECK(std::sqrt(sum_sq / n - mean * mean) / mean > 1.5);
  CHECK(static_cast<double>(high) / static_cast<double>(a.jobs.size()) ==
        Approx(0.25).epsilon(0.05));
  CHECK(a.strings.str(a.jobs[0].user).starts_with("u"));
  CHECK(a.strings.str(a.jobs[0].tenant).starts_with("t"));

  // Fitting recovers the parameters of a log-normal trace.
  SyntheticTraceSpec truth;
  truth.jobs = 20'000;
  truth.seed = 5;
  truth.mean_interarrival_s = 30.0;
  truth.duration_median_s = 600.0;
  truth.duration_sigma = 1.2;
  truth.duration_min_s = 1e-3;
  truth.duration_max_s = 1e9;
  truth.gang_mix = {{1, 0.7}, {8, 0.3}};
  const Trace sample = generate_synthetic_trace(truth);
  SyntheticTraceSpec fitted;
  fit_synthetic_spec(sample, false, fitted);
  CHECK(fitted.mean_interarrival_s == Approx(30.0).epsilon(0.03));
  CHECK(fitted.duration_median_s == Approx(600.0).epsilon(0.03));
  CHECK(fitted.duration_sigma == Approx(1.2).epsilon(0.03));
  REQUIRE(fitted.gang_mix.size() == 2);
  CHECK(fitted.gang_mix[1].first == 8);
  CHECK(fitted.gang_mix[1].second == Approx(0.3).epsilon(0.05));
  SyntheticTraceSpec empirical;
  fit_synthetic_spec(sample, true, empirical);
  CHECK(empirical.duration == SyntheticTraceSpec::Duration::kEmpirical);
  CHECK(empirical.empirical_durations_s.size() == 20'000);
  empirical.jobs = 20'000;
  const TraceStats resampled = compute_trace_stats(generate_synthetic_trace(empirical));
  CHECK(resampled.duration_p50_s ==
        Approx(compute_trace_stats(sample).duration_p50_s).epsilon(0.05));

  SyntheticTraceSpec bad;
  bad.gang_mix = {{0, 1.0}};
  CHECK_THROWS_WITH(generate_synthetic_trace(bad), "synthetic trace: gang size 0 is not >= 1");
}
