// What the fuzz harnesses share (docs/fuzzing.md).
//
// Contract of a harness: LLVMFuzzerTestOneInput hands its input to one reader and, when that
// parses, to what the program does next with the result (cheap checks, a tiny simulation). The
// documented input errors (schedlab::InputError: TraceError, ConfigError) are the expected
// outcome of bad input and are swallowed. Anything else is a finding: another exception type
// escapes the harness (std::terminate, reported by libFuzzer as a crash), a broken property
// aborts through fail(), and the sanitizers and libFuzzer catch memory errors, undefined
// behaviour, leaks, hangs and memory blow-ups.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "schedlab/cluster.hpp"
#include "schedlab/job.hpp"

namespace schedlab::fuzz {

// The input bytes as text.
inline std::string_view text_of(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// Once per process, before the first input: logging off (readers log at info level, which
// would flood the fuzzer's output and slow it down).
void quiet_logging();

// A directory of this process only, "$TMPDIR/schedlab-fuzz-PID" (TMPDIR unset: /tmp), created
// at the first call and removed at exit.
const std::string& scratch_dir();
// Writes `bytes` to scratch_dir()/name, replacing the file, and returns its path. Readers that
// take only a path read their input from there.
std::string write_scratch_file(const std::string& name, std::string_view bytes);

// Harnesses whose input is several files take them in one input, separated by kPartSeparator
// lines: the text split at its first max_parts - 1 separators (at most max_parts parts; one part
// when it has none). The seed corpora are written the same way.
inline constexpr std::string_view kPartSeparator = "\n=====\n";
std::vector<std::string_view> split_parts(std::string_view text, std::size_t max_parts);

// A broken property (not an input error): prints "fuzz property failed: WHAT" and aborts.
[[noreturn]] void fail(const std::string& what);

// Jobs of a parsed trace that exercise_trace simulates, so that an execution stays fast.
inline constexpr std::size_t kMaxSimulatedJobs = 32;

// What follows a successful trace read: the trace statistics; the native CSV written and read
// back, which must give the same jobs (the writer's contract); FIFO over the first
// kMaxSimulatedJobs jobs on one node of 8 GPUs.
void exercise_trace(const Trace& trace);

// Clusters exercise_cluster_spec builds in full; larger ones are only size-checked.
inline constexpr std::int64_t kMaxBuiltClusterGpus = 4096;

// What follows a successful cluster spec parse: the size check (ConfigError beyond the limits)
// and, for a spec of at most kMaxBuiltClusterGpus GPUs, the Cluster and its topology.
void exercise_cluster_spec(const ClusterSpec& spec);

}  // namespace schedlab::fuzz
