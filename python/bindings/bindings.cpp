#include "bindings.hpp"

#include <cmath>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <pybind11/numpy.h>
#include <pybind11/stl.h>
#include <nlohmann/json.hpp>

#include "python_policy.hpp"
#include "schedlab/csv.hpp"
#include "schedlab/error.hpp"
#include "schedlab/error_kind.hpp"
#include "schedlab/json_text.hpp"
#include "schedlab/metric_catalog.hpp"
#include "schedlab/output.hpp"
#include "schedlab/plugin.hpp"
#include "schedlab/policy.hpp"
#include "schedlab/policy_contract.hpp"
#include "schedlab/run_option_table.hpp"
#include "schedlab/simulation.hpp"
#include "schedlab/trace.hpp"
#include "schedlab/trace_filter.hpp"
#include "schedlab/trace_writer.hpp"
#include "schedlab/version.hpp"

namespace py = pybind11;

namespace schedlab::python {

namespace {

using Json = nlohmann::ordered_json;

// A loaded trace, shared by the runs that replay it.
struct TraceHandle {
  std::shared_ptr<const Trace> trace;
};

// A run's outputs as `schedlab run --out` writes them.
struct RunOutput {
  SimulationResult result;
  std::string summary_text;  // summary.json
};

// A Python value (None, bool, int, float, str, os.PathLike) as JSON; throws ConfigError.
Json json_of(const std::string& field, const py::handle& value) {
  if (value.is_none()) return Json();
  if (py::isinstance<py::bool_>(value)) return Json(value.cast<bool>());
  if (py::isinstance<py::int_>(value)) {
    // Integers as JSON integers, as a sweep spec gives them; beyond int64, as numbers.
    try {
      return Json(value.cast<std::int64_t>());
    } catch (const py::cast_error&) {
      return Json(value.cast<double>());
    }
  }
  if (py::isinstance<py::float_>(value)) return Json(value.cast<double>());
  if (py::isinstance<py::str>(value)) return Json(value.cast<std::string>());
  if (py::hasattr(value, "__fspath__"))
    return Json(py::module_::import("os").attr("fspath")(value).cast<std::string>());
  throw ConfigError(fmt::format("{}: expected a number, a string or true/false, got {}", field,
                                py::repr(value).cast<std::string>()));
}

// Keyword options of run() as RunOptions; the same names, types and checks as a sweep spec's
// "options" (docs/workflows.md), and `seed`.
RunOptions run_options_from(const py::dict& options) {
  RunOptions run;
  std::set<std::string> given;
  for (const auto& [key_object, value] : options) {
    const std::string key = py::str(key_object).cast<std::string>();
    const RunOptionInfo* option = find_run_option(key);
    if (option == nullptr) {
      std::string known;
      for (const auto& o : run_option_table())
        known += (known.empty() ? "" : ", ") + std::string(o.key);
      throw ConfigError(fmt::format("{}={}: unknown run option (options: {})", key,
                                    py::repr(value).cast<std::string>(), known));
    }
    const Json json = json_of(key, value);
    if (json.is_null()) continue;  // None: the default
    try {
      set_run_option_json(run, *option, json);
    } catch (const InputError& e) {
      throw ConfigError(fmt::format("{}: {}", key, e.what()));
    }
    if (!json.is_string() || !json.get<std::string>().empty()) given.insert(key);
  }
  if (given.count("failures") != 0 && given.count("failure_trace") != 0)
    throw ConfigError("failure_trace: cannot be combined with failures");
  return run;
}

// Columns of the CSV `text`: each a numpy array of int64 (every field an integer), float64
// (every field a number or empty, empty as NaN) or str objects (the `text_columns`, and any
// column with another field). Column order is the header's.
py::dict csv_columns(const std::string& text, const std::set<std::string>& text_columns) {
  CsvReader reader(text, "<csv>");
  std::vector<std::string_view> fields;
  py::dict out;
  if (!reader.next_row(fields)) return out;
  const std::vector<std::string> names(fields.begin(), fields.end());
  std::vector<std::vector<std::string>> cells(names.size());
  while (reader.next_row(fields))
    for (std::size_t c = 0; c < names.size(); ++c)
      cells[c].emplace_back(c < fields.size() ? std::string(fields[c]) : std::string());
  for (std::size_t c = 0; c < names.size(); ++c) {
    const auto& column = cells[c];
    bool all_int = text_columns.count(names[c]) == 0;
    bool all_number = all_int;
    for (const auto& field : column) {
      if (!all_number) break;
      if (field.empty()) {
        all_int = false;
        continue;
      }
      if (all_int && !parse_int(field)) all_int = false;
      if (!all_int && !parse_double(field)) all_number = false;
    }
    if (all_int && !column.empty()) {
      py::array_t<std::int64_t> array(static_cast<py::ssize_t>(column.size()));
      auto data = array.mutable_unchecked<1>();
      for (std::size_t r = 0; r < column.size(); ++r)
        data(static_cast<py::ssize_t>(r)) = *parse_int(column[r]);
      out[py::str(names[c])] = array;
    } else if (all_number) {
      py::array_t<double> array(static_cast<py::ssize_t>(column.size()));
      auto data = array.mutable_unchecked<1>();
      for (std::size_t r = 0; r < column.size(); ++r)
        data(static_cast<py::ssize_t>(r)) =
            column[r].empty() ? std::nan("") : *parse_double(column[r]);
      out[py::str(names[c])] = array;
    } else {
      py::list strings;
      for (const auto& field : column) strings.append(py::str(field));
      out[py::str(names[c])] = py::module_::import("numpy").attr("array")(strings, "object");
    }
  }
  return out;
}

py::object summary_dict(const std::string& summary_text) {
  return py::module_::import("json").attr("loads")(summary_text);
}

}  // namespace

void define_module(py::module_& m) {
  m.attr("__version__") = SCHEDLAB_VERSION_STRING;

  // Errors: input problems become schedlab.InputError (built by the package from the one-line
  // message), illegal decisions schedlab.PolicyError, a stuck run schedlab.StuckError.
  static py::exception<PolicyError> policy_error(m, "PolicyError", PyExc_RuntimeError);
  static py::exception<StuckError> stuck_error(m, "StuckError", PyExc_RuntimeError);
  static py::exception<OutputError> output_error(m, "OutputError", PyExc_OSError);
  static py::exception<InvariantError> invariant_error(m, "InvariantError", PyExc_RuntimeError);
  py::register_exception_translator([](std::exception_ptr thrown) {
    try {
      if (thrown) std::rethrow_exception(thrown);
    } catch (const PythonPolicyError& e) {
      // The policy's own exception, with where in the run it was raised.
      const py::object exception = e.exception().get();
      if (py::hasattr(exception, "add_note")) exception.attr("add_note")(e.note());
      PyErr_SetObject(reinterpret_cast<PyObject*>(Py_TYPE(exception.ptr())), exception.ptr());
    } catch (...) {
      const ClassifiedError error = classify_exception(std::current_exception());
      switch (error.kind) {
        case ErrorKind::kInput: {
          const py::object input = py::module_::import("schedlab").attr("_input_error")(error.what);
          PyErr_SetObject(reinterpret_cast<PyObject*>(Py_TYPE(input.ptr())), input.ptr());
          return;
        }
        case ErrorKind::kPolicy: policy_error(error.what.c_str()); return;
        case ErrorKind::kStuck: stuck_error(error.what.c_str()); return;
        case ErrorKind::kOutput: output_error(error.what.c_str()); return;
        case ErrorKind::kInvariant: invariant_error(error.what.c_str()); return;
        case ErrorKind::kOutOfMemory:
        case ErrorKind::kInternal: throw;  // to pybind11's own mapping
      }
    }
  });

  define_policy_classes(m);

  py::class_<TraceHandle>(m, "TraceData", "A loaded trace (the engine's copy).")
      .def_property_readonly("path", [](const TraceHandle& t) { return t.trace->path; })
      .def_property_readonly("format", [](const TraceHandle& t) { return t.trace->format; })
      .def_property_readonly("skipped", [](const TraceHandle& t) { return t.trace->skipped; })
      .def("__len__", [](const TraceHandle& t) { return t.trace->jobs.size(); })
      .def("native_csv", [](const TraceHandle& t) { return format_native_trace(*t.trace); });

  m.def(
      "read_trace",
      [](const std::string& path, const std::string& format,
         const std::vector<std::string>& filters) {
        const TraceFilter filter = parse_trace_filter(filters);
        auto trace = std::make_shared<Trace>();
        {
          const py::gil_scoped_release release;
          *trace = read_trace(path, TraceReadOptions{format});
          apply_trace_filter(*trace, filter);
        }
        return TraceHandle{std::move(trace)};
      },
      py::arg("path"), py::arg("format") = "auto", py::arg("filters") = std::vector<std::string>{});

  m.def(
      "trace_from_native_csv",
      [](const std::string& text, const std::string& source) {
        return TraceHandle{std::make_shared<Trace>(read_native_trace(source, text))};
      },
      py::arg("text"), py::arg("source"));

  m.def("csv_columns", &csv_columns, py::arg("text"), py::arg("text_columns"));

  py::class_<RunOutput>(m, "RunOutput",
                        "The outputs of one run, as `schedlab run --out` writes them.")
      .def_property_readonly("summary_text", [](const RunOutput& r) { return r.summary_text; })
      .def_property_readonly("summary",
                             [](const RunOutput& r) { return summary_dict(r.summary_text); })
      .def_property_readonly("jobs_csv", [](const RunOutput& r) { return r.result.jobs_csv; })
      .def_property_readonly("attempts_csv",
                             [](const RunOutput& r) { return r.result.attempts_csv; })
      .def_property_readonly("timeseries_csv",
                             [](const RunOutput& r) { return r.result.timeseries_csv; })
      .def_property_readonly("tenants_csv", [](const RunOutput& r) { return r.result.tenants_csv; })
      .def_property_readonly("events", [](const RunOutput& r) { return r.result.engine.events; })
      .def("table", [](const RunOutput& r) { return format_summary_table(r.result.summary); })
      .def(
          "write",
          [](const RunOutput& r, const std::string& dir) {
            write_files_atomically(dir, run_output_files(r.result, r.summary_text));
          },
          py::arg("dir"));

  m.def(
      "run",
      [](const TraceHandle& trace, const std::string& cluster, const std::string& policy,
         const std::map<std::string, std::string>& params, const py::dict& options,
         bool reproducible, bool isolated_baseline, bool files) {
        SimulationRequest request;
        request.policy = policy;
        request.params = params;
        request.options = run_options_from(options);
        request.reproducible = reproducible;
        request.isolated_baseline = isolated_baseline;
        request.files = files;
        const ClusterSpec cluster_spec = parse_cluster_spec(cluster);
        // Unknown policies, "py:" names and bad parameters are found with the GIL held.
        make_policy(request.policy, request.params);
        auto output = std::make_unique<RunOutput>();
        {
          const py::gil_scoped_release release;
          output->result = simulate(*trace.trace, cluster_spec, request);
          output->summary_text = json_text(output->result.summary, 2) + "\n";
        }
        return output;
      },
      py::arg("trace"), py::arg("cluster"), py::arg("policy"), py::arg("params"),
      py::arg("options"), py::arg("reproducible"), py::arg("isolated_baseline"), py::arg("files"));

  m.def("register_python_policy", &register_python_policy, py::arg("name"),
        py::arg("policy_class"));

  m.def("policies", [] {
    std::map<std::string, std::string> plugin_of;
    for (const LoadedPlugin& plugin : loaded_plugins())
      for (const std::string& name : plugin.policies) plugin_of[name] = plugin.path;
    py::list out;
    for (const PolicyInfo& info : registered_policies()) {
      py::dict d;
      d["name"] = info.name;
      d["summary"] = info.summary;
      py::list params;
      for (const auto& p : info.params) {
        py::dict param;
        param["key"] = p.key;
        param["default"] = p.default_value;
        param["description"] = p.description;
        params.append(param);
      }
      d["params"] = params;
      d["uses_tenants"] = info.uses_tenants;
      const auto plugin = plugin_of.find(info.name);
      d["origin"] = info.name.starts_with("py:") ? "python"
                    : plugin != plugin_of.end()  ? "plug-in " + plugin->second
                                                 : "built-in";
      out.append(d);
    }
    return out;
  });

  m.def(
      "load_plugin",
      [](const std::string& path) {
        const LoadedPlugin plugin = load_plugin(path);
        return std::make_pair(plugin.policies, plugin.placements);
      },
      py::arg("path"));

  m.def("run_option_keys", [] {
    std::vector<std::string> keys;
    for (const auto& option : run_option_table()) keys.emplace_back(option.key);
    return keys;
  });

  m.def("compared_metric_keys", [] {
    std::vector<std::string> keys;
    for (const std::string_view key : compared_metric_keys()) keys.emplace_back(key);
    return keys;
  });

  m.def(
      "check_policy",
      [](const std::string& policy, const std::map<std::string, std::string>& params,
         bool never_preempts) {
        PolicyContractOptions options;
        options.params = params;
        options.never_preempts = never_preempts;
        make_policy(policy, params);
        PolicyContractReport report;
        {
          const py::gil_scoped_release release;
          report = check_policy_contract(policy, options);
        }
        std::vector<std::pair<std::string, std::string>> failures;
        for (const auto& f : report.failures) failures.emplace_back(f.run, f.problem);
        return py::make_tuple(report.policy, report.runs, failures,
                              format_policy_contract_report(report));
      },
      py::arg("policy"), py::arg("params"), py::arg("never_preempts"));
}

}  // namespace schedlab::python
