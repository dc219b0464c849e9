// The MPI runner of `schedlab sweep` (sweep_mpi.hpp): rank 0 coordinates, ranks 1..N-1 run
// cells. Compiled only when CMake found MPI (else sweep_mpi_unavailable.cpp).
//
// Protocol: point-to-point messages on MPI_COMM_WORLD, each a JSON text (MPI_CHAR).
//   0 -> w  kStart   {"ok": true, "source", "spec": the normalized spec, "out_dir"}
//                    or {"ok": false, "exit_code": E} when the inputs are bad
//   w -> 0  kHello   {"host", "pid", "slots"}, or {"host", "pid", "error", "kind", "what"}
//                    when the rank cannot read the inputs (it then takes no cells)
//   0 -> w  kAssign  {"cell": I, "marker": the cell's cell.json}: fills a free slot
//   0 -> w  kNoMore  {}: closes a slot (no cells left, or the run failed)
//   w -> 0  kResult  {"cell", "wall_s", "summary"} or {"cell", "wall_s", "error", "kind",
//                    "what"}: frees the slot it ran in
// A worker stops when all its slots are closed, rank 0 when every worker's are. Rank 0 never
// waits on one rank: it polls for messages and sends without waiting for delivery, so the
// order in which messages cross cannot deadlock, and an idle rank sleeps instead of spinning.
#include <mpi.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <list>
#include <map>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "schedlab/error.hpp"
#include "schedlab/error_kind.hpp"
#include "schedlab/json_text.hpp"
#include "schedlab/printable.hpp"
#include "schedlab/sweep.hpp"
#include "schedlab/sweep_inflight.hpp"
#include "schedlab/sweep_steps.hpp"
#include "sweep_mpi.hpp"

namespace schedlab::cli {

namespace {

using Json = nlohmann::ordered_json;

enum Tag : int { kStart = 1, kHello, kAssign, kNoMore, kResult };

// How long an idle rank sleeps between looks for messages: short next to a cell's run.
constexpr auto kPollInterval = std::chrono::milliseconds(1);

void finalize_mpi() {
  MPI_Finalize();
}

struct MpiWorld {
  int rank = 0;
  int size = 1;
};

// Starts MPI for the rest of the process; only this thread calls it. MPI_Finalize runs at exit,
// after main printed the error of a failed command: it waits for every rank, and mpirun ends
// the job as soon as one rank exits with an error, so a rank that finalized earlier could exit
// and have rank 0 killed before it printed.
MpiWorld start_mpi() {
  int provided = 0;
  MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
  std::atexit(finalize_mpi);
  MpiWorld world;
  MPI_Comm_rank(MPI_COMM_WORLD, &world.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &world.size);
  return world;
}

struct Message {
  int source = 0;
  int tag = 0;
  Json body;
};

// The next message from `source` (or MPI_ANY_SOURCE) when one has arrived.
std::optional<Message> try_receive(int source) {
  int arrived = 0;
  MPI_Status status;
  MPI_Iprobe(source, MPI_ANY_TAG, MPI_COMM_WORLD, &arrived, &status);
  if (arrived == 0) return std::nullopt;
  int count = 0;
  MPI_Get_count(&status, MPI_CHAR, &count);
  std::string text(static_cast<std::size_t>(count), '\0');
  MPI_Recv(text.data(), count, MPI_CHAR, status.MPI_SOURCE, status.MPI_TAG, MPI_COMM_WORLD,
           MPI_STATUS_IGNORE);
  return Message{
      status.MPI_SOURCE, status.MPI_TAG,
      parse_json_text<Json>(text, fmt::format("message from rank {}", status.MPI_SOURCE))};
}

Message receive(int source) {
  while (true) {
    if (auto message = try_receive(source)) return std::move(*message);
    std::this_thread::sleep_for(kPollInterval);
  }
}

// Blocking send, for workers: rank 0 always receives promptly.
void send(const Json& body, int destination, Tag tag) {
  const std::string text = json_text(body);
  MPI_Send(text.data(), static_cast<int>(text.size()), MPI_CHAR, destination, tag, MPI_COMM_WORLD);
}

// Sends of rank 0, which do not wait for delivery; each text lives until its send completed.
class Outbox {
 public:
  Outbox() = default;
  Outbox(const Outbox&) = delete;
  Outbox& operator=(const Outbox&) = delete;
  ~Outbox() { flush(); }

  void send(const Json& body, int destination, Tag tag) {
    Entry& entry = entries_.emplace_back();
    entry.text = json_text(body);
    MPI_Isend(entry.text.data(), static_cast<int>(entry.text.size()), MPI_CHAR, destination, tag,
              MPI_COMM_WORLD, &entry.request);
    reap();
  }
  // Forgets the sends that completed.
  void reap() {
    entries_.remove_if([](Entry& entry) {
      int done = 0;
      MPI_Test(&entry.request, &done, MPI_STATUS_IGNORE);
      return done != 0;
    });
  }
  void flush() {
    for (auto& entry : entries_) MPI_Wait(&entry.request, MPI_STATUS_IGNORE);
    entries_.clear();
  }

 private:
  struct Entry {
    std::string text;
    MPI_Request request = MPI_REQUEST_NULL;
  };
  std::list<Entry> entries_;
};

std::string host_name() {
  std::array<char, 256> name{};
  if (gethostname(name.data(), name.size() - 1) != 0) return "unknown";
  return name.data();
}

// A failure as a message carries it: "error" (its results text), "kind" and "what".
void describe_failure(const std::exception_ptr& failure, Json& body) {
  const ClassifiedError error = classify_exception(failure);
  body["error"] = failure_text(error);
  body["kind"] = std::string(error_kind_name(error.kind));
  body["what"] = error.what;
}

// The failure a message describes, as an exception of the kind the rank caught, so that rank 0
// reports it with the exit code a local run gives.
std::exception_ptr described_failure(const Json& body) {
  const auto kind = error_kind_named(body.at("kind").get<std::string>());
  try {
    throw_error(kind.value_or(ErrorKind::kInternal), body.at("what").get<std::string>());
  } catch (...) {
    return std::current_exception();
  }
}

// The exit code main gives an exception of this kind.
int exit_code_of(const std::exception_ptr& failure) {
  return exit_code_of(classify_exception(failure).kind);
}

// Rank 0: checks the inputs, hands the cells out, gathers the results and writes the tables.
int coordinate(const MpiSweepCommand& command, int ranks) {
  Outbox outbox;
  const auto started = std::chrono::steady_clock::now();
  SweepRunOptions options;
  options.jobs = command.jobs;
  SweepSpec spec;
  std::optional<SweepRun> run;
  try {
    spec = command.prepare(ranks, options);
    run = prepare_sweep(spec, options);
  } catch (...) {
    const Json stop{{"ok", false}, {"exit_code", exit_code_of(std::current_exception())}};
    for (int rank = 1; rank < ranks; ++rank) outbox.send(stop, rank, kStart);
    throw;
  }
  const Json start{{"ok", true},
                   {"source", spec.source},
                   {"spec", sweep_spec_json(spec)},
                   {"out_dir", options.out_dir}};
  for (int rank = 1; rank < ranks; ++rank) outbox.send(start, rank, kStart);
  std::filesystem::create_directories(options.out_dir);

  const std::vector<SweepCell> cells = expand_cells(spec);
  std::deque<SweepCell> queue;
  for (const auto& cell : largest_first(spec, run->inputs, run->pending)) queue.push_back(cell);
  struct Worker {
    std::string host;
    long pid = 0;
  };
  std::vector<Worker> workers(static_cast<std::size_t>(ranks));
  std::map<std::size_t, int> in_flight;  // cell -> rank
  int greeted = 0;
  int open_slots = 0;
  int worker_threads = 0;
  // The first thing that stops the run: once set, every slot is closed as it frees.
  std::exception_ptr stopped;

  auto serve = [&](int rank) {
    if (stopped || queue.empty()) {
      outbox.send(Json::object(), rank, kNoMore);
      --open_slots;
      return;
    }
    const SweepCell cell = queue.front();
    queue.pop_front();
    in_flight[cell.index] = rank;
    outbox.send(Json{{"cell", cell.index}, {"marker", run->markers[cell.index]}}, rank, kAssign);
  };
  auto handle = [&](const Message& message) {
    Worker& worker = workers.at(static_cast<std::size_t>(message.source));
    if (message.tag == kHello) {
      ++greeted;
      worker.host = message.body.at("host").get<std::string>();
      worker.pid = message.body.at("pid").get<long>();
      if (message.body.contains("error")) {
        if (!stopped)
          stopped = std::make_exception_ptr(ConfigError(
              fmt::format("sweep: rank {} (pid {} on host {}) cannot read the sweep's inputs: {}",
                          message.source, worker.pid, worker.host,
                          message.body.at("what").get<std::string>())));
        return;
      }
      const int slots = message.body.at("slots").get<int>();
      SCHEDLAB_ASSERT(slots >= 1, "a worker offers at least one slot");
      open_slots += slots;
      worker_threads += slots;
      for (int slot = 0; slot < slots; ++slot) serve(message.source);
      return;
    }
    SCHEDLAB_ASSERT(message.tag == kResult, "workers send hellos and results");
    const std::size_t index = message.body.at("cell").get<std::size_t>();
    const auto it = in_flight.find(index);
    SCHEDLAB_ASSERT(it != in_flight.end() && it->second == message.source,
                    "a worker reports the cells it was given");
    in_flight.erase(it);
    serve(message.source);  // first: the rank waits for the answer whatever happens here
    const double wall_s = message.body.at("wall_s").get<double>();
    if (message.body.contains("summary")) {
      record_sweep_cell(*run, options, cells.at(index), message.body.at("summary"), nullptr, "",
                        wall_s);
    } else {
      record_sweep_cell(*run, options, cells.at(index), std::nullopt,
                        described_failure(message.body),
                        message.body.at("error").get<std::string>(), wall_s);
    }
  };
  auto write_journal = [&] {
    std::vector<SweepInflightCell> journal;
    for (const auto& [cell, rank] : in_flight) {
      const Worker& worker = workers[static_cast<std::size_t>(rank)];
      journal.push_back(SweepInflightCell{cell, rank, worker.host, worker.pid});
    }
    write_sweep_inflight(options.out_dir, journal);
  };

  while (greeted < ranks - 1 || open_slots > 0) {
    auto message = try_receive(MPI_ANY_SOURCE);
    if (!message) {
      outbox.reap();
      std::this_thread::sleep_for(kPollInterval);
      continue;
    }
    try {
      handle(*message);
      write_journal();
    } catch (...) {
      // Keep answering until every worker stopped, then report.
      if (!stopped) stopped = std::current_exception();
    }
  }
  outbox.flush();
  SCHEDLAB_ASSERT(in_flight.empty(), "every cell handed out was reported");
  if (stopped) {
    remove_sweep_inflight(options.out_dir);
    std::rethrow_exception(stopped);
  }
  const SweepOutcome outcome = finish_sweep(spec, options, *run);
  const std::chrono::duration<double> wall = std::chrono::steady_clock::now() - started;
  return command.report(
      options, outcome, wall.count(),
      fmt::format("{} worker{} on {} rank{}", worker_threads, worker_threads == 1 ? "" : "s",
                  ranks - 1, ranks - 1 == 1 ? "" : "s"));
}

// A worker rank's threads and the cells between them and the thread that talks to rank 0.
class CellThreads {
 public:
  using Run = std::function<Json(const Json& assignment)>;

  CellThreads(unsigned threads, Run run) : run_(std::move(run)) {
    for (unsigned i = 0; i < threads; ++i) threads_.emplace_back([this] { loop(); });
  }
  CellThreads(const CellThreads&) = delete;
  CellThreads& operator=(const CellThreads&) = delete;
  // Lets the cells taken finish, then stops.
  ~CellThreads() {
    {
      const std::lock_guard lock(mutex_);
      closed_ = true;
    }
    wake_.notify_all();
    for (auto& thread : threads_) thread.join();
  }

  void add(Json assignment) {
    {
      const std::lock_guard lock(mutex_);
      assigned_.push_back(std::move(assignment));
    }
    wake_.notify_one();
  }
  // The reports of the cells finished since the last call; with `wait`, at least one.
  std::deque<Json> take_reports(bool wait) {
    std::unique_lock lock(mutex_);
    if (wait) reported_.wait(lock, [this] { return !reports_.empty(); });
    std::deque<Json> reports;
    reports.swap(reports_);
    return reports;
  }

 private:
  void loop() {
    while (true) {
      Json assignment;
      {
        std::unique_lock lock(mutex_);
        wake_.wait(lock, [this] { return !assigned_.empty() || closed_; });
        if (assigned_.empty()) return;
        assignment = std::move(assigned_.front());
        assigned_.pop_front();
      }
      Json report = run_(assignment);
      {
        const std::lock_guard lock(mutex_);
        reports_.push_back(std::move(report));
      }
      reported_.notify_one();
    }
  }

  Run run_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::condition_variable reported_;
  std::deque<Json> assigned_;
  std::deque<Json> reports_;
  bool closed_ = false;
  std::vector<std::thread> threads_;
};

// Ranks 1..N-1: run the cells rank 0 hands out, `command.jobs` at once.
int work_cells(const MpiSweepCommand& command) {
  const Message start = receive(0);
  SCHEDLAB_ASSERT(start.tag == kStart, "rank 0 speaks first");
  if (!start.body.at("ok").get<bool>()) return start.body.at("exit_code").get<int>();
  Json hello{{"host", host_name()}, {"pid", static_cast<long>(getpid())}};
  SweepSpec spec;
  SweepInputs inputs;
  std::vector<SweepCell> cells;
  const std::string out_dir = start.body.at("out_dir").get<std::string>();
  try {
    spec = parse_sweep_spec(start.body.at("spec"), start.body.at("source").get<std::string>());
    inputs = load_sweep_inputs(spec);
    cells = expand_cells(spec);
  } catch (...) {
    const auto failure = std::current_exception();
    describe_failure(failure, hello);
    send(hello, 0, kHello);
    return exit_code_of(failure);
  }
  hello["slots"] = command.jobs;
  send(hello, 0, kHello);

  auto run_cell = [&](const Json& assignment) {
    const std::size_t index = assignment.at("cell").get<std::size_t>();
    Json report{{"cell", index}};
    const auto started = std::chrono::steady_clock::now();
    try {
      report["summary"] =
          run_sweep_cell(spec, inputs, cells.at(index), out_dir, assignment.at("marker"));
    } catch (...) {
      describe_failure(std::current_exception(), report);
    }
    const std::chrono::duration<double> wall = std::chrono::steady_clock::now() - started;
    report["wall_s"] = wall.count();
    return report;
  };
  if (command.jobs == 1) {
    // The cells run on this thread, as those of a local -j 1 sweep do: in the main malloc arena,
    // which gets huge pages (huge_pages.hpp), where a thread's arena does not.
    while (true) {
      const Message message = receive(0);
      if (message.tag == kNoMore) return kExitOk;
      SCHEDLAB_ASSERT(message.tag == kAssign, "rank 0 assigns cells or closes slots");
      send(run_cell(message.body), 0, kResult);
    }
  }
  CellThreads threads(command.jobs, run_cell);
  // Every open slot awaits rank 0's answer (to the hello or to a result) or runs a cell; when
  // all run one, the rank sleeps until one finishes instead of polling.
  auto open_slots = static_cast<int>(command.jobs);
  int awaiting = open_slots;
  while (open_slots > 0) {
    bool idle = true;
    if (awaiting > 0) {
      if (auto message = try_receive(0)) {
        idle = false;
        --awaiting;
        if (message->tag == kAssign) {
          threads.add(std::move(message->body));
        } else {
          SCHEDLAB_ASSERT(message->tag == kNoMore, "rank 0 assigns cells or closes slots");
          --open_slots;
        }
      }
    }
    for (const auto& report : threads.take_reports(awaiting == 0 && open_slots > 0)) {
      idle = false;
      send(report, 0, kResult);
      ++awaiting;
    }
    if (idle) std::this_thread::sleep_for(kPollInterval);
  }
  return kExitOk;
}

}  // namespace

int run_sweep_on_mpi_ranks(const MpiLaunch& /*launch*/, const MpiSweepCommand& command) {
  const MpiWorld world = start_mpi();
  if (world.size == 1) return command.local();
  if (world.rank == 0) return coordinate(command, world.size);
  try {
    return work_cells(command);
  } catch (const std::exception& e) {
    // Rank 0 would wait for this rank's cells forever: end the job, as a dead rank does.
    std::fprintf(stderr, "schedlab: rank %d: internal error: %s\n", world.rank,
                 printable_text(e.what()).c_str());
    MPI_Abort(MPI_COMM_WORLD, kExitInternal);
    return kExitInternal;
  }
}

}  // namespace schedlab::cli
