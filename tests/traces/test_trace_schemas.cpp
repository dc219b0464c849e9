// Formats whose data is not shipped (Helios, Acme, Alibaba PAI 2020, raw Philly JSON): small
// files written to the official schemas, including their odd cases.
#include <catch2/catch.hpp>

#include "schedlab/trace.hpp"
#include "schedlab/trace_writer.hpp"
#include "support/builders.hpp"
#include "traces/trace_test_util.hpp"

using namespace schedlab;
using namespace schedlab::testing;

namespace {

const JobSpec& job(const Trace& trace, const std::string& id) {
  for (const auto& j : trace.jobs)
    if (j.id == id) return j;
  FAIL("no job " << id);
  throw std::logic_error("unreachable");
}

}  // namespace

TEST_CASE("helios cluster_log.csv: CPU-only, never started, zero and missing durations",
          "[traces]") {
  const std::string text =
      "job_id,user,vc,jobname,gpu_num,cpu_num,node_num,state,submit_time,start_time,end_time,"
      "duration,queue\n"
      "1425511,uXBbc,vcJkd,j1,1,1,1,COMPLETED,2020-06-09 18:41:01,2020-06-09 18:41:01,2020-06-10 "
      "04:55:09,36848,0\n"
      "1425512,uVMrF,vchbv,j2,4,16,1,FAILED,2020-06-09 18:41:27,2020-06-09 18:41:27,2020-06-09 "
      "18:45:36,249,0\n"
      "1425513,uzqls,vcpDC,j3,1,1,1,CANCELLED,2020-06-09 18:41:28,2020-06-09 18:41:28,2020-06-17 "
      "14:15:21,675233,0\n"
      "1425514,uXBbc,vcJkd,j4,0,8,1,COMPLETED,2020-06-09 18:42:00,2020-06-09 18:42:00,2020-06-09 "
      "18:43:00,60,0\n"
      "1425515,uXBbc,vcJkd,j5,2,8,1,CANCELLED,2020-06-09 18:43:00,,,0,\n"
      "1425516,uXBbc,vcJkd,j6,8,8,1,COMPLETED,2020-06-09 18:40:00,2020-06-09 18:50:00,2020-06-09 "
      "18:50:00,0,600\n"
      "1425517,uVMrF,vchbv,j7,16,64,2,TIMEOUT,2020-06-09 19:00:00,2020-06-09 19:10:00,2020-06-09 "
      "21:10:00,,600\n"
      "1425518,uVMrF,vchbv,j8,1,1,1,RUNNING,2020-06-09 19:00:00,2020-06-09 19:00:00,None,None,0\n";
  CHECK(detected("cluster_log.csv", text) == "helios");
  const Trace trace = read_as("helios", "cluster_log.csv", text);
  REQUIRE(trace.jobs.size() == 4);
  CHECK(skipped_count(trace, "CPU-only (gpu_num 0)") == 1);
  CHECK(skipped_count(trace, "never started (no start_time)") == 1);
  CHECK(skipped_count(trace, "no run time (duration 0)") == 1);
  CHECK(skipped_count(trace, "no end_time") == 1);
  // Time 0 = the earliest submission among the jobs kept (18:41:01).
  CHECK(job(trace, "1425511").submit_ms == 0);
  CHECK(job(trace, "1425511").duration_ms == 36'848'000);
  CHECK(job(trace, "1425512").submit_ms == 26'000);
  CHECK(job(trace, "1425512").gpus == 4);
  CHECK(job(trace, "1425517").duration_ms == 7'200'000);  // from end - start
  CHECK(job(trace, "1425517").submit_ms == 1'139'000);
  CHECK(trace.strings.str(job(trace, "1425517").status) == "TIMEOUT");
  CHECK(trace.strings.str(job(trace, "1425512").tenant) == "vchbv");
  CHECK(trace.strings.str(job(trace, "1425512").user) == "uVMrF");
}

TEST_CASE("acme Seren and Kalos: UTC offsets, Kalos's duration from submit ignored", "[traces]") {
  const std::string seren =
      "job_id,user,node_num,gpu_num,cpu_num,type,state,submit_time,start_time,end_time,duration,"
      "queue,gpu_time\n"
      "5778432,u5907,1,8,128,Other,FAILED,2023-03-01 00:18:22+08:00,2023-03-01 "
      "00:18:54+08:00,2023-03-01 00:20:51+08:00,117,32,936.0\n"
      "5778469,u5907,1,8,128,Pretrain,COMPLETED,2023-03-01 00:23:58+08:00,2023-03-01 "
      "00:24:11+08:00,2023-03-01 01:09:04+08:00,2693,13,21544.0\n"
      "5778470,u1,1,0,4,Debug,COMPLETED,2023-03-01 00:10:00+08:00,2023-03-01 "
      "00:10:01+08:00,2023-03-01 00:10:05+08:00,4,1,0.0\n"
      "5778471,u2,1,1,8,SFT,CANCELLED,2023-03-01 00:30:00+08:00,,,,,\n";
  CHECK(detected("trace_seren.csv", seren) == "acme");
  const Trace s = read_as("acme", "trace_seren.csv", seren);
  REQUIRE(s.jobs.size() == 2);
  CHECK(skipped_count(s, "CPU-only (gpu_num 0)") == 1);
  CHECK(skipped_count(s, "never started (no start_time)") == 1);
  CHECK(s.jobs[0].submit_ms == 0);
  CHECK(s.jobs[0].duration_ms == 117'000);
  CHECK(s.jobs[1].submit_ms == 336'000);
  CHECK(s.jobs[1].duration_ms == 2'693'000);
  CHECK(s.strings.str(s.jobs[1].tenant) == "Pretrain");

  const std::string kalos =
      "job_id,user,node_num,gpu_num,cpu_num,mem_per_pod_GB,shared_mem_per_pod,type,state,submit_"
      "time,start_time,"
      "end_time,fail_time,stop_time,duration,queue,gpu_time\n"
      "dlctk696s0jbvitv,uf794,8,64,960,1000,100.0,Other,FAILED,2023-05-17 "
      "11:00:58+00:00,2023-05-17 11:01:08+00:00,"
      "2023-05-17 11:01:16+00:00,2023-05-17 11:01:16+00:00,,18,10.0,1152.0\n"
      "dlc1t2ypl09b8qtp,uf794,8,64,960,1000,100.0,Other,CANCELLED,2023-05-17 "
      "11:28:42+00:00,2023-05-17 11:28:54+00:00,"
      "2023-05-17 11:30:04+00:00,,2023-05-17 11:30:04+00:00,82,12.0,5248.0\n"
      "dlcz,uf794,1,8,96,100,10.0,SFT,COMPLETED,2023-05-17 19:28:42+08:00,2023-05-17 "
      "19:29:00+08:00,"
      "2023-05-17 19:30:00+08:00,,,78,18.0,624.0\n";
  const Trace k = read_as("acme", "trace_kalos.csv", kalos);
  REQUIRE(k.jobs.size() == 3);
  CHECK(k.jobs[0].duration_ms == 8'000);   // 11:01:08 -> 11:01:16, not the file's 18
  CHECK(k.jobs[1].duration_ms == 70'000);  // not 82
  CHECK(k.jobs[1].submit_ms == 1'664'000);
  // 19:28:42+08:00 is 11:28:42 UTC: the same instant as the second job.
  CHECK(k.jobs[2].submit_ms == k.jobs[1].submit_ms);
  CHECK(k.jobs[2].gpus == 8);
}

TEST_CASE("philly raw JSON: attempts missing or empty, None end times, GPU-less attempts",
          "[traces]") {
  const std::string json = R"([
{"status": "Pass", "vc": "ee9e8c", "jobid": "application_1506638472019_14199",
 "attempts": [
   {"start_time": "2017-10-07 01:12:09", "end_time": "2017-10-07 01:13:23",
    "detail": [{"ip": "m47", "gpus": ["gpu0","gpu1","gpu2","gpu3","gpu4","gpu5","gpu6","gpu7"]}]},
   {"start_time": "2017-10-07 01:13:30", "end_time": "2017-10-09 06:53:12",
    "detail": [{"ip": "m412", "gpus": ["gpu0","gpu1","gpu2","gpu3","gpu4","gpu5","gpu6","gpu7"]}]}],
 "submitted_time": "2017-10-07 01:11:39", "user": "ce2f4c"},
{"status": "Killed", "vc": "ee9e8c", "jobid": "application_2", "attempts": [],
 "submitted_time": "2017-10-07 01:00:00", "user": "ce2f4c"},
{"status": "Killed", "vc": "ee9e8c", "jobid": "application_3",
 "submitted_time": "2017-10-07 01:00:00", "user": "ce2f4c"},
{"status": "Pass", "vc": "b436b2", "jobid": "application_4",
 "attempts": [{"start_time": "2017-10-08 00:00:00", "end_time": "None",
               "detail": [{"ip": "m1", "gpus": ["gpu0"]}]}],
 "submitted_time": "2017-10-07 23:00:00", "user": "u2"},
{"status": "Failed", "vc": "b436b2", "jobid": "application_5",
 "attempts": [{"start_time": null, "end_time": "2017-10-08 00:00:00",
               "detail": [{"ip": "m1", "gpus": ["gpu0"]}]}],
 "submitted_time": "2017-10-07 23:00:00", "user": "u2"},
{"status": "Pass", "vc": "b436b2", "jobid": "application_6",
 "attempts": [{"start_time": "2017-10-08 00:00:00", "end_time": "2017-10-08 00:01:00",
               "detail": [{"ip": "m1", "gpus": []}]}],
 "submitted_time": "2017-10-07 23:00:00", "user": "u2"},
{"status": "Failed", "vc": "b436b2", "jobid": "application_7",
 "attempts": [{"start_time": "2017-10-07 01:20:00", "end_time": "2017-10-07 01:21:40",
               "detail": [{"ip": "m1", "gpus": ["gpu0","gpu1","gpu2","gpu3"]},
                          {"ip": "m2", "gpus": ["gpu0","gpu1","gpu2","gpu3"]}]}],
 "submitted_time": "2017-10-07 01:15:00", "user": "u3"}
]
)";
  CHECK(detected("cluster_job_log", json) == "philly-json");
  const Trace trace = read_as("philly-json", "cluster_job_log", json);
  REQUIRE(trace.jobs.size() == 2);
  CHECK(skipped_count(trace, "never ran (no attempts)") == 2);
  CHECK(skipped_count(trace, "no end_time in the last attempt (running at the snapshot)") == 1);
  CHECK(skipped_count(trace, "no start_time in the first attempt") == 1);
  CHECK(skipped_count(trace, "no GPUs in the first attempt") == 1);
  const JobSpec& a = job(trace, "application_1506638472019_14199");
  CHECK(a.line == 2);
  CHECK(a.gpus == 8);
  CHECK(a.submit_ms == 0);  // the earliest submission kept
  // First attempt's start 2017-10-07 01:12:09 to last attempt's end 2017-10-09 06:53:12.
  CHECK(a.duration_ms == 193'263'000);
  CHECK(trace.strings.str(a.status) == "Pass");
  CHECK(trace.strings.str(a.tenant) == "ee9e8c");
  CHECK(trace.strings.str(a.user) == "ce2f4c");
  const JobSpec& b = job(trace, "application_7");
  CHECK(b.gpus == 8);
  CHECK(b.duration_ms == 100'000);
  CHECK(b.submit_ms == 201'000);  // 01:15:00 - 01:11:39
  CHECK(trace.strings.str(b.status) == "Failed");

  // The same jobs as JSON Lines, one object per line.
  std::string lines;
  for (
      const char* j :
      {R"({"status": "Pass", "vc": "x", "jobid": "a", "attempts": [{"start_time": "2017-10-07 01:00:00", "end_time": "2017-10-07 02:00:00", "detail": [{"ip": "m1", "gpus": ["gpu0", "gpu1"]}]}], "submitted_time": "2017-10-07 00:59:00", "user": "u"})",
       R"({"status": "Killed", "vc": "x", "jobid": "b", "attempts": [], "submitted_time": "2017-10-07 00:00:00", "user": "u"})"})
    lines += std::string(j) + "\n";
  const Trace jl = read_as("philly-json", "log.jsonl", lines);
  REQUIRE(jl.jobs.size() == 1);
  CHECK(jl.jobs[0].gpus == 2);
  CHECK(jl.jobs[0].duration_ms == 3'600'000);
}

TEST_CASE("alibaba PAI task table: headerless, grouped by job, joined with pai_job_table",
          "[traces]") {
  const std::string tasks =
      "j1,worker,2.0,Terminated,100.0,400.0,600.0,29.3,50.0,T4\n"
      "j1,ps,1.0,Terminated,90.0,410.0,600.0,29.3,,\n"
      "j2,tensorflow,1.0,Terminated,200.0,500.0,600.0,10.0,100.0,V100\n"
      "j2,evaluator,1.0,Terminated,210.0,300.0,600.0,10.0,100.0,P100\n"
      "j3,worker,1.0,Running,300.0,,600.0,10.0,100.0,MISC\n"
      "j4,worker,1.0,Waiting,,,600.0,10.0,100.0,MISC\n"
      "j5,ps,1.0,Terminated,50.0,60.0,600.0,10.0,0.0,\n"
      "j6,worker,1.0,Failed,100.0,150.0,600.0,10.0,800.0,V100M32\n"
      "j6,evaluator,1.0,Terminated,100.0,160.0,600.0,10.0,100.0,V100M32\n";
  const std::string dir = fresh_temp_dir("pai");
  write_text(dir + "/pai_task_table.csv", tasks);
  const Trace alone = read_trace(dir + "/pai_task_table.csv");
  CHECK(alone.format == "alibaba-pai");
  REQUIRE(alone.jobs.size() == 3);
  CHECK(skipped_count(alone, "no end_time (running at the snapshot)") == 1);
  CHECK(skipped_count(alone, "never started (no start_time)") == 1);
  CHECK(skipped_count(alone, "CPU-only (plan_gpu 0)") == 1);
  const JobSpec& j1 = job(alone, "j1");
  CHECK(j1.gpus == 2);  // two instances at 50% each hold a whole GPU each
  CHECK(j1.submit_ms == 90'000);
  CHECK(j1.duration_ms == 320'000);
  CHECK(alone.strings.str(j1.gpu_type) == "T4");
  CHECK(j1.user == 0);
  const JobSpec& j2 = job(alone, "j2");
  CHECK(j2.gpus == 2);
  CHECK(j2.gpu_type == 0);  // V100 and P100 tasks: no single constraint
  CHECK(j2.duration_ms == 300'000);
  const JobSpec& j6 = job(alone, "j6");
  CHECK(j6.gpus == 9);
  CHECK(j6.duration_ms == 60'000);
  CHECK(alone.strings.str(j6.status) == "Failed");

  write_text(dir + "/pai_job_table.csv",
             "j1,inst1,userA,Terminated,80.0,410.0\nj6,inst6,userB,Failed,95.0,160.0\n");
  const Trace joined = read_trace(dir + "/pai_task_table.csv");
  REQUIRE(joined.jobs.size() == 3);
  CHECK(job(joined, "j1").submit_ms == 80'000);
  CHECK(joined.strings.str(job(joined, "j1").user) == "userA");
  CHECK(job(joined, "j1").duration_ms == 320'000);
  CHECK(job(joined, "j2").submit_ms == 200'000);  // not in the job table
  CHECK(joined.strings.str(job(joined, "j6").user) == "userB");

  // With the header row of pai_task_table.header, under another name.
  const std::string with_header =
      "job_name,task_name,inst_num,status,start_time,end_time,plan_cpu,plan_mem,plan_gpu,gpu_"
      "type\n" +
      tasks;
  CHECK(detected("tasks.csv", with_header) == "alibaba-pai");
  const Trace headed = read_as("alibaba-pai", "tasks.csv", with_header);
  CHECK(headed.jobs.size() == 3);
  CHECK(job(headed, "j1").line == 2);
}

TEST_CASE("philly raw JSON: strings lose their outer blanks, so the native CSV reads back the same",
          "[traces]") {
  // Found by tests/fuzz (fuzz_trace_philly_json): the status "Killed " came back from the
  // trace's native CSV as "Killed", since CSV readers trim every field.
  const std::string json = R"([
{"status": "Killed ", "vc": "\tee9e8c", "jobid": " application_7 ", "user": "u3  ",
 "attempts": [{"start_time": "2017-10-07 01:20:00", "end_time": "2017-10-07 01:21:40",
               "detail": [{"ip": "m1", "gpus": ["gpu0","gpu1","gpu2","gpu3"]}]}],
 "submitted_time": "2017-10-07 01:15:00"}
]
)";
  const Trace trace = read_as("philly-json", "cluster_job_log", json);
  REQUIRE(trace.jobs.size() == 1);
  const JobSpec& job = trace.jobs[0];
  CHECK(job.id == "application_7");
  CHECK(trace.strings.str(job.status) == "Killed");
  CHECK(trace.strings.str(job.tenant) == "ee9e8c");
  CHECK(trace.strings.str(job.user) == "u3");

  const Trace again = read_native_trace("round-trip.csv", format_native_trace(trace));
  REQUIRE(again.jobs.size() == 1);
  CHECK(again.jobs[0].id == job.id);
  CHECK(again.strings.str(again.jobs[0].status) == "Killed");
  CHECK(again.strings.str(again.jobs[0].tenant) == "ee9e8c");
  CHECK(again.strings.str(again.jobs[0].user) == "u3");

  CHECK_THROWS_WITH(read_as("philly-json", "j.json",
                            R"([{"status": "Pass", "jobid": " ", "submitted_time": "2017-10-07 )"
                            R"(01:15:00"}])"),
                    "j.json:1: key 'jobid': expected a non-empty string, got ' '");
}
