#include "python_policy.hpp"

#include <optional>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <pybind11/stl.h>

#include "schedlab/output.hpp"
#include "schedlab/printable.hpp"

namespace py = pybind11;

namespace schedlab::python {

SharedPyObject::SharedPyObject(py::object object)
    : object_(new py::object(std::move(object)), [](py::object* held) {
        // Dropped with the GIL, whichever thread drops it; not at all once Python is gone.
        if (Py_IsInitialized() == 0) return;
        const py::gil_scoped_acquire gil;
        delete held;
      }) {}

namespace {

// A Python exception as one printable line, "TypeName: message", without pybind11's traceback.
std::string exception_line(const py::error_already_set& error) {
  const py::gil_scoped_acquire gil;
  std::string type = "Exception";
  std::string message;
  try {
    type = py::str(error.type().attr("__name__")).cast<std::string>();
    message = py::str(error.value()).cast<std::string>();
  } catch (const py::error_already_set&) {
    message = error.what();
    message = message.substr(0, message.find('\n'));
  }
  return printable_text(message.empty() ? type : type + ": " + message);
}

// Whether the run a Python view belongs to is still going: views check it before every read.
using RunToken = std::shared_ptr<const bool>;

void check_alive(const RunToken& token) {
  if (!token || !*token)
    throw std::runtime_error(
        "schedlab: this context, job or decisions object belongs to a policy run that is over");
}

py::object optional_ms(TimeMs ms) {
  return ms == kUnsetMs ? py::none() : py::object(py::int_(ms));
}

py::list placement_list(const Placement& placement) {
  py::list out;
  for (const auto& a : placement) out.append(py::make_tuple(a.node, a.gpus));
  return out;
}

Placement placement_from(const py::handle& object) {
  Placement out;
  for (const py::handle item : py::iter(object)) {
    const auto pair = item.cast<std::pair<std::int64_t, std::uint64_t>>();
    if (pair.first < 0 || pair.first > std::numeric_limits<NodeIndex>::max())
      throw py::value_error(fmt::format("placement: node {} does not exist", pair.first));
    out.push_back({static_cast<NodeIndex>(pair.first), pair.second});
  }
  return out;
}

GpuTypeIndex gpu_type_from(const py::object& type) {
  return type.is_none() ? kAnyGpuType : type.cast<GpuTypeIndex>();
}

const char* job_status_name(JobStatus status) {
  switch (status) {
    case JobStatus::kNotSubmitted: return "not_submitted";
    case JobStatus::kQueued: return "queued";
    case JobStatus::kRunning: return "running";
    case JobStatus::kCompleted: return "completed";
    case JobStatus::kWalltimeReached: return "walltime_reached";
    case JobStatus::kRejected: return "rejected";
  }
  return "?";
}

// A reference into the run's state, checked to be alive before every read.
template <typename T>
struct RunRef {
  RunToken token;
  T* target;
  T& get() const {
    check_alive(token);
    return *target;
  }
};

struct PyJob : RunRef<const SchedContext> {
  JobIndex index;
  JobView view() const { return get().job(index); }
};

struct PyCluster : RunRef<const Cluster> {
  const Node& node(std::int64_t index) const {
    if (index < 0 || static_cast<std::uint64_t>(index) >= get().node_count())
      throw py::index_error(fmt::format("node {} does not exist", index));
    return get().node(static_cast<NodeIndex>(index));
  }
};

struct PyQueue : RunRef<const SchedContext> {
  const QueueView& queue() const { return get().queue(); }
};

struct PyWhatIf : RunRef<const SchedContext> {
  WhatIf& what_if() const { return get().what_if(); }
};

// A job index of the trace, else IndexError; with `running`, also a running job, else
// ValueError (the progress questions about running jobs).
JobIndex checked_job(const SchedContext& ctx, std::int64_t job, bool running = false) {
  if (job < 0 || static_cast<std::uint64_t>(job) >= ctx.job_count())
    throw py::index_error(fmt::format("job {} is not in the trace", job));
  const auto index = static_cast<JobIndex>(job);
  if (running && ctx.job(index).status() != JobStatus::kRunning)
    throw py::value_error(fmt::format("job {} is not running", job));
  return index;
}

struct PyContext : RunRef<const SchedContext> {
  JobIndex job(std::int64_t index, bool running = false) const {
    return checked_job(get(), index, running);
  }
  TenantIndex tenant(std::int64_t index) const {
    if (index < 0 || static_cast<std::uint64_t>(index) >= get().tenants().size())
      throw py::index_error(fmt::format("tenant {} does not exist", index));
    return static_cast<TenantIndex>(index);
  }
};

struct PyDecisions {
  std::shared_ptr<bool> in_schedule;  // true only during the schedule() call it was given to
  Decisions* decisions = nullptr;
  Decisions& get() const {
    if (!in_schedule || !*in_schedule)
      throw std::runtime_error("schedlab: decisions can only be made during schedule()");
    return *decisions;
  }
};

struct PyChanges {
  std::vector<JobIndex> arrived;
  std::vector<JobIndex> requeued;
  std::vector<JobIndex> ended;
  bool ended_early;
  bool nodes_changed;
  bool released;
};

// The methods a Python policy object has (missing hooks are not called).
struct Hooks {
  py::object on_begin, on_submit, on_finish, on_requeue, schedule;
};

class PythonPolicy final : public Policy {
 public:
  PythonPolicy(std::string name, py::object instance) : name_(std::move(name)) {
    const py::gil_scoped_acquire gil;
    py::object hooks;
    try {
      hooks = py::module_::import("schedlab").attr("_policy_hooks")(instance);
    } catch (py::error_already_set& error) {  // e.g. a hook that is not callable
      throw ConfigError(fmt::format("--policy {}: {}", name_, exception_line(error)));
    }
    hooks_.on_begin = hooks.attr("on_begin");
    hooks_.on_submit = hooks.attr("on_submit");
    hooks_.on_finish = hooks.attr("on_finish");
    hooks_.on_requeue = hooks.attr("on_requeue");
    hooks_.schedule = hooks.attr("schedule");
    instance_ = std::move(instance);
  }

  ~PythonPolicy() override {
    *alive_ = false;
    *in_schedule_ = false;
    const py::gil_scoped_acquire gil;
    hooks_ = {};
    py_ctx_ = py::object();
    py_decisions_ = py::object();
    instance_ = py::object();
  }
  PythonPolicy(const PythonPolicy&) = delete;
  PythonPolicy& operator=(const PythonPolicy&) = delete;

  void on_begin(const SchedContext& ctx, const RunSizes& sizes) override {
    call("on_begin", ctx, [&] {
      py_ctx_ = py::cast(PyContext{{alive_, &ctx}});
      py_decisions_ = py::cast(PyDecisions{in_schedule_, nullptr});
      if (hooks_.on_begin.is_none()) return;
      py::dict info;
      info["jobs"] = sizes.jobs;
      info["nodes"] = sizes.nodes;
      info["gpus"] = sizes.gpus;
      info["gpu_types"] = sizes.gpu_types;
      hooks_.on_begin(py_ctx_, info);
    });
  }
  void on_submit(const SchedContext& ctx, JobIndex job) override {
    if (!hooks_.on_submit.is_none())
      call("on_submit", ctx, [&] { hooks_.on_submit(py_ctx_, job); });
  }
  void on_finish(const SchedContext& ctx, JobIndex job) override {
    if (!hooks_.on_finish.is_none())
      call("on_finish", ctx, [&] { hooks_.on_finish(py_ctx_, job); });
  }
  void on_requeue(const SchedContext& ctx, JobIndex job) override {
    if (!hooks_.on_requeue.is_none())
      call("on_requeue", ctx, [&] { hooks_.on_requeue(py_ctx_, job); });
  }
  void schedule(const SchedContext& ctx, Decisions& decisions) override {
    call("schedule", ctx, [&] {
      auto& held = py_decisions_.cast<PyDecisions&>();
      held.decisions = &decisions;
      *in_schedule_ = true;
      struct Close {
        std::shared_ptr<bool> flag;
        ~Close() { *flag = false; }
      } close{in_schedule_};
      hooks_.schedule(py_ctx_, py_decisions_);
    });
  }

 private:
  // Runs `body` with the GIL; a Python exception becomes PythonPolicyError.
  template <typename Body>
  void call(const char* hook, const SchedContext& ctx, Body&& body) {
    const py::gil_scoped_acquire gil;
    try {
      body();
    } catch (py::error_already_set& error) {
      const std::string where = fmt::format("raised in {}() at simulated time {} s", hook,
                                            fixed(static_cast<double>(ctx.now()) / 1000.0, 3));
      std::string traceback;
      try {
        const py::object lines =
            py::module_::import("traceback")
                .attr("format_exception")(error.type(), error.value(), error.trace());
        traceback = py::str("").attr("join")(lines).cast<std::string>();
      } catch (const py::error_already_set&) {
        traceback = error.what();
      }
      while (!traceback.empty() && traceback.back() == '\n') traceback.pop_back();
      SharedPyObject exception(error.value());
      throw PythonPolicyError(fmt::format("policy '{}' {}:\n{}", name_, where, traceback),
                              std::move(exception), fmt::format("policy '{}' {}", name_, where));
    }
  }

  std::string name_;
  py::object instance_;
  Hooks hooks_;
  py::object py_ctx_;
  py::object py_decisions_;
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
  std::shared_ptr<bool> in_schedule_ = std::make_shared<bool>(false);
};

}  // namespace

void register_python_policy(const std::string& name, const py::object& policy_class) {
  const py::object package = py::module_::import("schedlab");
  const py::tuple described = package.attr("_describe_policy")(policy_class);
  PolicyInfo info;
  info.name = name;
  info.summary = described[0].cast<std::string>();
  for (const py::handle param : described[1]) {
    const auto [key, default_text, description, kind] =
        param.cast<std::tuple<std::string, std::string, std::string, std::string>>();
    info.params.push_back({key, default_text, description, kind});
  }
  info.uses_tenants = described[2].cast<bool>();
  SharedPyObject held(policy_class);
  info.make = [name, held](const PolicyParams& params) -> std::unique_ptr<Policy> {
    py::object instance;
    {
      const py::gil_scoped_acquire gil;
      try {
        instance =
            py::module_::import("schedlab").attr("_make_policy")(held.get(), params.values());
      } catch (py::error_already_set& error) {
        throw ConfigError(fmt::format("--policy {}: {}", name, exception_line(error)));
      }
    }
    return std::make_unique<PythonPolicy>(name, std::move(instance));
  };
  register_policy(std::move(info));
}

void define_policy_classes(py::module_& m) {
  py::class_<PyJob>(m, "Job", "A job as a policy may know it (no true duration, no work left).")
      .def_property_readonly("index", [](const PyJob& j) { return j.index; })
      .def_property_readonly("id", [](const PyJob& j) { return j.view().id(); })
      .def_property_readonly("submit_ms", [](const PyJob& j) { return j.view().submit_ms(); })
      .def_property_readonly("gpus", [](const PyJob& j) { return j.view().gpus(); })
      .def_property_readonly("walltime_ms", [](const PyJob& j) { return j.view().walltime_ms(); })
      .def_property_readonly("priority", [](const PyJob& j) { return j.view().priority(); })
      .def_property_readonly("user",
                             [](const PyJob& j) { return j.get().strings().str(j.view().user()); })
      .def_property_readonly(
          "tenant", [](const PyJob& j) { return j.get().strings().str(j.view().tenant()); })
      .def_property_readonly("gpu_type",
                             [](const PyJob& j) -> py::object {
                               const GpuTypeIndex type = j.view().gpu_type();
                               if (type == kAnyGpuType) return py::none();
                               return py::int_(type);
                             })
      .def_property_readonly("preemptible", [](const PyJob& j) { return j.view().preemptible(); })
      .def_property_readonly("status",
                             [](const PyJob& j) { return job_status_name(j.view().status()); })
      .def_property_readonly("attempt", [](const PyJob& j) { return j.view().attempt(); })
      .def_property_readonly("first_start_ms",
                             [](const PyJob& j) { return optional_ms(j.view().first_start_ms()); })
      .def_property_readonly("last_start_ms",
                             [](const PyJob& j) { return optional_ms(j.view().last_start_ms()); })
      .def_property_readonly("queued_since_ms",
                             [](const PyJob& j) { return optional_ms(j.view().queued_since_ms()); })
      .def_property_readonly("held_ms", [](const PyJob& j) { return j.view().held_ms(); })
      .def_property_readonly("restarts", [](const PyJob& j) { return j.view().restarts(); })
      .def_property_readonly("preemptions", [](const PyJob& j) { return j.view().preemptions(); })
      .def_property_readonly("placement",
                             [](const PyJob& j) { return placement_list(j.view().placement()); })
      .def_property_readonly("walltime_end_ms",
                             [](const PyJob& j) { return j.view().walltime_end_ms(); })
      .def("__repr__", [](const PyJob& j) {
        return fmt::format("<schedlab.Job {} id={} gpus={}>", j.index, j.view().id(),
                           j.view().gpus());
      });

  py::class_<PyCluster>(m, "ClusterView", "Which GPUs are free, per node and in total.")
      .def_property_readonly("free_gpus", [](const PyCluster& c) { return c.get().free_gpus(); })
      .def_property_readonly("total_gpus", [](const PyCluster& c) { return c.get().total_gpus(); })
      .def_property_readonly("node_count", [](const PyCluster& c) { return c.get().node_count(); })
      .def_property_readonly("gpu_types",
                             [](const PyCluster& c) {
                               std::vector<std::string> names;
                               for (const auto& t : c.get().gpu_types()) names.push_back(t.name);
                               return names;
                             })
      .def(
          "free_gpus_of",
          [](const PyCluster& c, const py::object& type) {
            return c.get().free_gpus_of(gpu_type_from(type));
          },
          py::arg("gpu_type") = py::none())
      .def("node_gpus", [](const PyCluster& c, std::int64_t n) { return c.node(n).gpus; })
      .def("node_gpu_type", [](const PyCluster& c, std::int64_t n) { return c.node(n).type; })
      .def("node_free_mask", [](const PyCluster& c, std::int64_t n) { return c.node(n).free_mask; })
      .def("node_free_gpus",
           [](const PyCluster& c, std::int64_t n) { return c.node(n).free_gpus(); })
      .def("node_state",
           [](const PyCluster& c, std::int64_t n) {
             c.node(n);
             return node_state_name(c.get().node_state(static_cast<NodeIndex>(n)));
           })
      .def("free_gpus_per_node",
           [](const PyCluster& c) {
             std::vector<int> out;
             out.reserve(c.get().node_count());
             for (const Node& node : c.get().nodes()) out.push_back(node.free_gpus());
             return out;
           })
      .def("can_allocate", [](const PyCluster& c, const py::object& placement) {
        return c.get().can_allocate(placement_from(placement));
      });

  py::class_<PyQueue>(m, "QueueView", "Queued jobs in submit order (submit time, then index).")
      .def("__len__", [](const PyQueue& q) { return q.queue().size(); })
      .def("__bool__", [](const PyQueue& q) { return !q.queue().empty(); })
      .def("__iter__",
           [](const PyQueue& q) {
             std::vector<JobIndex> jobs;
             jobs.reserve(q.queue().size());
             for (const auto& entry : q.queue()) jobs.push_back(entry.second);
             return py::iter(py::cast(jobs));
           })
      .def("__contains__",
           [](const PyQueue& q, JobIndex job) {
             return job < q.get().job_count() &&
                    q.queue().contains({q.get().job(job).submit_ms(), job});
           })
      .def_property_readonly("head",
                             [](const PyQueue& q) -> py::object {
                               if (q.queue().empty()) return py::none();
                               return py::int_(q.queue().head());
                             })
      .def_property_readonly("smallest_gpus",
                             [](const PyQueue& q) -> py::object {
                               if (q.queue().empty()) return py::none();
                               return py::int_(q.queue().smallest_gpus());
                             })
      .def_property_readonly("smallest_walltime_ms", [](const PyQueue& q) -> py::object {
        if (q.queue().empty()) return py::none();
        return py::int_(q.queue().smallest_walltime_ms());
      });

  py::class_<PyChanges>(m, "Changes", "What changed since the previous schedule() call.")
      .def_readonly("arrived", &PyChanges::arrived)
      .def_readonly("requeued", &PyChanges::requeued)
      .def_readonly("ended", &PyChanges::ended)
      .def_readonly("ended_early", &PyChanges::ended_early)
      .def_readonly("nodes_changed", &PyChanges::nodes_changed)
      .def_readonly("released", &PyChanges::released);

  py::class_<PyWhatIf>(m, "WhatIf",
                       "A scratch copy of the cluster for planning, reset after schedule().")
      .def_property_readonly("cluster",
                             [](const PyWhatIf& w) {
                               return PyCluster{{w.token, &w.what_if().cluster()}};
                             })
      .def("release",
           [](const PyWhatIf& w, std::int64_t job) {
             w.what_if().release(checked_job(w.get(), job, true));
           })
      .def("hold", [](const PyWhatIf& w,
                      const py::object& placement) { w.what_if().hold(placement_from(placement)); })
      .def("place",
           [](const PyWhatIf& w, const py::object& type, int gpus) -> py::object {
             auto placement = w.what_if().place(gpu_type_from(type), gpus);
             if (!placement) return py::none();
             return placement_list(*placement);
           })
      .def("reset", [](const PyWhatIf& w) { w.what_if().reset(); });

  py::class_<PyContext>(m, "Context", "The read-only view of the run a policy's hooks receive.")
      .def_property_readonly("now", [](const PyContext& c) { return c.get().now(); })
      .def_property_readonly("job_count", [](const PyContext& c) { return c.get().job_count(); })
      .def("job",
           [](const PyContext& c, std::int64_t job) {
             return PyJob{{c.token, c.target}, c.job(job)};
           })
      .def_property_readonly("running", [](const PyContext& c) { return c.get().running(); })
      .def_property_readonly("queue",
                             [](const PyContext& c) {
                               return PyQueue{{c.token, c.target}};
                             })
      .def_property_readonly("queued_gpus",
                             [](const PyContext& c) { return c.get().queued_gpus(); })
      .def_property_readonly("running_by_walltime_end",
                             [](const PyContext& c) {
                               std::vector<std::pair<TimeMs, JobIndex>> out(
                                   c.get().running_by_walltime_end().begin(),
                                   c.get().running_by_walltime_end().end());
                               return out;
                             })
      .def_property_readonly("changes",
                             [](const PyContext& c) {
                               const Changes& ch = c.get().changes();
                               return PyChanges{ch.arrived,     ch.requeued,      ch.ended,
                                                ch.ended_early, ch.nodes_changed, ch.released()};
                             })
      .def_property_readonly("cluster",
                             [](const PyContext& c) {
                               return PyCluster{{c.token, &c.get().cluster()}};
                             })
      .def_property_readonly("what_if",
                             [](const PyContext& c) {
                               return PyWhatIf{{c.token, c.target}};
                             })
      .def_property_readonly("tenants",
                             [](const PyContext& c) {
                               py::list out;
                               for (const Tenant& t : c.get().tenants().tenants()) {
                                 py::dict d;
                                 d["name"] = t.name;
                                 d["quota_gpus"] = t.quota_gpus;
                                 d["weight"] = t.weight;
                                 d["entitled_share"] = t.entitled_share;
                                 out.append(d);
                               }
                               return out;
                             })
      .def("tenant_of", [](const PyContext& c,
                           std::int64_t job) { return c.get().tenants().of_job(c.job(job)); })
      .def("tenant_busy_gpus",
           [](const PyContext& c, std::int64_t tenant) {
             return c.get().tenant_usage().busy_gpus(c.tenant(tenant));
           })
      .def("tenant_used_gpu_ms",
           [](const PyContext& c, std::int64_t tenant) {
             return c.get().tenant_usage().used_gpu_ms(c.tenant(tenant), c.get().now());
           })
      .def("work_done_ms",
           [](const PyContext& c, std::int64_t job) { return c.get().work_done_ms(c.job(job)); })
      .def("work_saved_if_preempted_ms",
           [](const PyContext& c, std::int64_t job) {
             return c.get().work_saved_if_preempted_ms(c.job(job, true));
           })
      .def("preemption_cost_gpu_ms",
           [](const PyContext& c, std::int64_t job) {
             return c.get().preemption_cost_gpu_ms(c.job(job, true));
           })
      .def("earliest_useful_preemption_ms", [](const PyContext& c, std::int64_t job) {
        return c.get().earliest_useful_preemption_ms(c.job(job, true));
      });

  py::class_<PyDecisions>(m, "Decisions", "What a policy may ask for during schedule().")
      .def("start",
           [](const PyDecisions& d, JobIndex job, const py::object& placement) {
             d.get().start(job, placement_from(placement));
           })
      .def("try_start", [](const PyDecisions& d, JobIndex job) { return d.get().try_start(job); })
      .def("find_placement",
           [](const PyDecisions& d, JobIndex job) -> py::object {
             auto placement = d.get().find_placement(job);
             if (!placement) return py::none();
             return placement_list(*placement);
           })
      .def("preempt", [](const PyDecisions& d, JobIndex job) { d.get().preempt(job); })
      .def("wake_at", [](const PyDecisions& d, TimeMs time_ms) { d.get().wake_at(time_ms); })
      .def("wake_node", [](const PyDecisions& d, NodeIndex node) { d.get().wake_node(node); });
}

}  // namespace schedlab::python
