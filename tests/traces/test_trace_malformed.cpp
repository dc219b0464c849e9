// Malformed input of every format gives one exact "FILE:LINE: message" naming column and value.
#include <catch2/catch.hpp>

#include "schedlab/error.hpp"
#include "traces/trace_test_util.hpp"

using namespace schedlab;
using namespace schedlab::testing;

namespace {

// The message of the TraceError that reading `text` throws ("" if it reads).
std::string error_of(const std::string& format, const std::string& name, const std::string& text) {
  try {
    read_as(format, name, text);
  } catch (const TraceError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("itp: malformed rows", "[traces]") {
  const std::string h = "job_id,submission_time,duration,num_gpu\n";
  CHECK(error_of("itp", "c.csv", "job_id,submission_time,duration\na,1,2\n") ==
        "c.csv:1: missing required column 'num_gpu' (required: job_id, submission_time, duration, "
        "num_gpu)");
  CHECK(error_of("itp", "c.csv", h + "a,10,abc,1\n") ==
        "c.csv:2: column 'duration': expected seconds >= 0, got 'abc'");
  CHECK(error_of("itp", "c.csv", h + "a,-5,10,1\n") ==
        "c.csv:2: column 'submission_time': expected seconds >= 0, got '-5'");
  CHECK(error_of("itp", "c.csv", h + "a,10,5,-1\n") ==
        "c.csv:2: column 'num_gpu': expected an integer >= 0, got '-1'");
  CHECK(error_of("itp", "c.csv", h + "a,10,5,1.5\n") ==
        "c.csv:2: column 'num_gpu': expected an integer >= 0, got '1.5'");
  CHECK(error_of("itp", "c.csv", h + "a,10,5\n") ==
        "c.csv:2: expected 4 fields as in the header, got 3");
  CHECK(error_of("itp", "c.csv", h + "a,10,5,1\nb,1,1,1\na,3,3,1\n") ==
        "c.csv:4: column 'job_id': duplicate id 'a' (first at line 2)");
  CHECK(error_of("itp", "c.csv", h + ",10,5,1\n") ==
        "c.csv:2: column 'job_id': expected a non-empty id, got ''");
  CHECK(error_of("itp", "c.csv", h) == "c.csv:2: no jobs: the file has no data rows");
  CHECK(error_of("itp", "c.csv", h + "a,10,0,1\nb,10,5,0\n") ==
        "c.csv: no usable jobs: every row was skipped (1 no run time (duration 0), 1 CPU-only "
        "(num_gpu 0))");
}

TEST_CASE("philly-csv: malformed rows", "[traces]") {
  const std::string h = "timestamp,duration,num_gpus,gpu_time,cluster\n";
  CHECK(error_of("philly-csv", "p.csv", h + "2017-13-01 00:00:00,10.0,1,10.0,vc\n") ==
        "p.csv:2: column 'timestamp': expected a time 'YYYY-MM-DD HH:MM:SS', got '2017-13-01 "
        "00:00:00'");
  CHECK(error_of("philly-csv", "p.csv", h + "2017-02-29 00:00:00,10.0,1,10.0,vc\n") ==
        "p.csv:2: column 'timestamp': expected a time 'YYYY-MM-DD HH:MM:SS', got '2017-02-29 "
        "00:00:00'");
  CHECK(error_of("philly-csv", "p.csv", h + "2017-10-01 00:00:00,10.0,2,25.0,vc\n") ==
        "p.csv:2: column 'gpu_time': expected duration x num_gpus = 20, got '25.0'");
  CHECK(error_of("philly-csv", "p.csv", h + "2017-10-01 00:00:00,-1,1,10.0,vc\n") ==
        "p.csv:2: column 'duration': expected seconds >= 0, got '-1'");
}

TEST_CASE("philly-vc: malformed rows", "[traces]") {
  const std::string h = "app_id,submit_time,service,num_jobs,sleep_time,model_name\n";
  CHECK(error_of("philly-vc", "trace_x.csv", h + "0,0.0,100.0,0,0.0,m\n") ==
        "trace_x.csv:2: column 'num_jobs': expected an integer >= 1, got '0'");
  CHECK(error_of("philly-vc", "trace_x.csv", h + "0,0.0,x,1,0.0,m\n") ==
        "trace_x.csv:2: column 'service': expected GPU-seconds in [0, 1e12], got 'x'");
  CHECK(error_of("philly-vc", "trace_x.csv", h + "0,0.0,1e13,1,0.0,m\n") ==
        "trace_x.csv:2: column 'service': expected GPU-seconds in [0, 1e12], got '1e13'");
}

TEST_CASE("alibaba-openb: malformed rows", "[traces]") {
  const std::string h =
      "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,"
      "deletion_time,scheduled_time\n";
  CHECK(error_of("alibaba-openb", "o.csv", h + "p0,1000,10,1,1500,,LS,Running,0,10,0\n") ==
        "o.csv:2: column 'gpu_milli': expected an integer in 0..1000, got '1500'");
  CHECK(error_of("alibaba-openb", "o.csv", h + "p0,1000,10,65,1000,,LS,Running,0,10,0\n") ==
        "o.csv:2: column 'num_gpu': expected an integer in 0..64, got '65'");
  CHECK(error_of("alibaba-openb", "o.csv", h + "p0,1000,10,1,1000,,LS,Running,0,soon,0\n") ==
        "o.csv:2: column 'deletion_time': expected seconds >= 0, got 'soon'");
}

TEST_CASE("helios: malformed rows", "[traces]") {
  const std::string h =
      "job_id,user,vc,gpu_num,cpu_num,node_num,state,submit_time,start_time,end_time\n";
  CHECK(error_of("helios", "h.csv",
                 h + "1,u,vc,1,1,1,COMPLETED,2020-06-09 18:41:01,2020-06-09 18:41:01,2020-06-09 "
                     "18:00:00\n") ==
        "h.csv:2: column 'end_time': expected a time >= start_time '2020-06-09 18:41:01', got "
        "'2020-06-09 18:00:00'");
  CHECK(
      error_of("helios", "h.csv",
               h + "1,u,vc,1,1,1,COMPLETED,09/06/2020,2020-06-09 18:41:01,2020-06-09 18:50:00\n") ==
      "h.csv:2: column 'submit_time': expected a time 'YYYY-MM-DD HH:MM:SS', got '09/06/2020'");
  CHECK(error_of("helios", "h.csv",
                 "job_id,user,gpu_num,state,submit_time,start_time,end_time\n1,u,1,X,a,b,c\n") ==
        "h.csv:1: missing required column 'vc' (required: job_id, vc, gpu_num, state, submit_time, "
        "start_time, end_time)");
}

TEST_CASE("acme: malformed rows", "[traces]") {
  const std::string h =
      "job_id,user,node_num,gpu_num,cpu_num,type,state,submit_time,start_time,end_time,duration,"
      "queue,gpu_time\n";
  CHECK(error_of("acme", "a.csv",
                 h + "1,u,1,8,128,Other,FAILED,2023-03-01 00:18:22+25:00,2023-03-01 "
                     "00:18:54+08:00,2023-03-01 00:20:51+08:00,117,32,936.0\n") ==
        "a.csv:2: column 'submit_time': expected a time 'YYYY-MM-DD HH:MM:SS', got '2023-03-01 "
        "00:18:22+25:00'");
  CHECK(error_of("acme", "a.csv",
                 h + "1,u,1,eight,128,Other,FAILED,2023-03-01 00:18:22+08:00,2023-03-01 "
                     "00:18:54+08:00,2023-03-01 00:20:51+08:00,117,32,936.0\n") ==
        "a.csv:2: column 'gpu_num': expected an integer >= 0, got 'eight'");
}

TEST_CASE("alibaba-pai: malformed rows", "[traces]") {
  CHECK(
      error_of("alibaba-pai", "pai_task_table.csv",
               "j1,worker,1.0,Terminated,10.0,20.0,600.0,29.3,-50,T4\n") ==
      "pai_task_table.csv:1: column 'plan_gpu': expected a GPU percentage in [0, 6400], got '-50'");
  CHECK(error_of("alibaba-pai", "pai_task_table.csv",
                 "j1,worker,1.0,Terminated,10.0,20.0,600.0,29.3,50\n") ==
        "pai_task_table.csv:1: expected 10 fields (job_name, task_name, inst_num, status, "
        "start_time, "
        "end_time, plan_cpu, plan_mem, plan_gpu, gpu_type), got 9");
  CHECK(error_of("alibaba-pai", "pai_task_table.csv",
                 "j1,worker,1.5,Terminated,10.0,20.0,600.0,29.3,50,T4\n") ==
        "pai_task_table.csv:1: column 'inst_num': expected an integer >= 0, got '1.5'");
  // '|' separates a set of types in the native format, so a name holding one could not be
  // written back (found by fuzz_trace_alibaba_pai's native round trip).
  CHECK(error_of("alibaba-pai", "pai_task_table.csv",
                 "j1,worker,1,Terminated,10.0,20.0,600.0,29.3,50,V100|T4\n") ==
        "pai_task_table.csv:1: column 'gpu_type': expected a GPU type name without '|', got "
        "'V100|T4'");
}

TEST_CASE("swf: malformed lines", "[traces]") {
  const std::string ok = "1 0 -1 10 4 -1 -1 4 100 -1 1 1 1 -1 -1 -1 -1 -1\n";
  CHECK(error_of("swf", "s.swf",
                 "; header\n" + ok + "2 5 -1 10 4 -1 -1 4 100 -1 1 1 1 -1 -1 -1 -1\n") ==
        "s.swf:3: expected 18 whitespace-separated SWF fields, got 17");
  CHECK(error_of("swf", "s.swf", "2 5 -1 abc 4 -1 -1 4 100 -1 1 1 1 -1 -1 -1 -1 -1\n") ==
        "s.swf:1: column 'run_time' (field 4): expected a number, got 'abc'");
  CHECK(error_of("swf", "s.swf", "2 5 -1 -5 4 -1 -1 4 100 -1 1 1 1 -1 -1 -1 -1 -1\n") ==
        "s.swf:1: column 'run_time' (field 4): expected seconds >= 0 or -1, got '-5'");
  CHECK(error_of("swf", "s.swf", "2 5 -1 5 4 -1 -1 4 100 -1 9 1 1 -1 -1 -1 -1 -1\n") ==
        "s.swf:1: column 'status' (field 11): expected a status code -1..5, got '9'");
  CHECK(error_of("swf", "s.swf", "1e300 5 -1 5 4 -1 -1 4 100 -1 1 1 1 -1 -1 -1 -1 -1\n") ==
        "s.swf:1: column 'job_number' (field 1): expected an integer, got '1e300'");
  CHECK(error_of("swf", "s.swf", "2 5 -1 5 -9.3e18 -1 -1 4 100 -1 1 1 1 -1 -1 -1 -1 -1\n") ==
        "s.swf:1: column 'allocated_procs' (field 5): expected an integer, got '-9.3e18'");
  CHECK(error_of("swf", "s.swf", ok + ok) ==
        "s.swf:2: column 'job_number': duplicate id '1' (first at line 1)");
}

TEST_CASE("philly-json: malformed jobs", "[traces]") {
  CHECK(error_of("philly-json", "j.json",
                 "[\n{\"jobid\": \"a\",\n \"status\": \"Pass\" \"vc\": \"x\"}\n]\n") ==
        "j.json:3: invalid JSON: syntax error while parsing object - unexpected string literal; "
        "expected '}'");
  CHECK(error_of("philly-json", "j.json",
                 "[{\"jobid\": \"a\", \"status\": \"Pass\", \"submitted_time\": "
                 "\"2017-10-07 25:11:39\", \"attempts\": []}]") ==
        "j.json:1: key 'submitted_time': expected a time 'YYYY-MM-DD HH:MM:SS', got '2017-10-07 "
        "25:11:39'");
  CHECK(error_of("philly-json", "j.json", "[\n{\"status\": \"Pass\"}\n]") ==
        "j.json:2: key 'jobid': missing");
  CHECK(error_of("philly-json", "j.json",
                 "[\n{\"jobid\": \"a\",\n \"status\": \"Pass\",\n \"jobid\": \"b\"}\n]\n") ==
        "j.json:4: key \"jobid\" appears twice in one object (each key may appear once)");
  CHECK(error_of("philly-json", "j.json", "[\n5\n]") ==
        "j.json:2: expected a JSON object per job, got 5");
  CHECK(error_of("philly-json", "j.json",
                 "[{\"jobid\": \"a\", \"status\": \"Pass\", \"submitted_time\": "
                 "\"2017-10-07 01:11:39\", \"attempts\": 5}]") ==
        "j.json:1: key 'attempts': expected an array, got 5");
  CHECK(error_of("philly-json", "j.json", "[\n\n") ==
        "j.json:3: unterminated JSON array (missing ']')");
  CHECK(error_of("philly-json", "j.json", "[\n{\"jobid\": \"a\"}\n]") ==
        "j.json:2: key 'status': missing");
  CHECK(error_of("philly-json", "j.json",
                 "[{\"jobid\": \"a\", \"status\": \"Pass\", \"submitted_time\": "
                 "\"2017-10-07 01:11:39\", \"attempts\": [{\"start_time\": 7}]}]") ==
        "j.json:1: key 'attempts[0].start_time': expected a time 'YYYY-MM-DD HH:MM:SS' or null, "
        "got 7");
}

TEST_CASE("native: malformed rows keep their messages", "[traces]") {
  CHECK(error_of("native", "n.csv", "id,submit_time,gpus,duration\na,0,0,10\n") ==
        "n.csv:2: column 'gpus': expected an integer in 1..1000000000, got '0'");
  CHECK(error_of("native", "n.csv", "id,submit_time,gpus,duration\na,0,1,10\na,1,1,10\n") ==
        "n.csv:3: column 'id': duplicate id 'a' (first at line 2)");
}
