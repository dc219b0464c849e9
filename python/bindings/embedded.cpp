// The Python bridge of the schedlab executable: `--policy py:FILE.py:CLASS` runs a Python class
// in an interpreter embedded in the process, started the first time such a name is used
// (docs/python.md).
//
// Contract: the interpreter sees this executable's own core as schedlab._schedlab (one copy of
// the registries and types), and the schedlab package from the install tree next to the
// executable or else from the build tree it was built in. After start-up the main thread holds
// no GIL: each policy hook takes it for the call, so sweep cells on threads can run Python
// policies. The interpreter is never finalized (the process ends with it).
#include <filesystem>
#include <mutex>
#include <string>

#include <fmt/format.h>
#include <pybind11/embed.h>

#include "bindings.hpp"
#include "python_policy.hpp"
#include "schedlab/error.hpp"
#include "schedlab/policy.hpp"

namespace py = pybind11;

PYBIND11_EMBEDDED_MODULE(_schedlab_embedded, m) {
  schedlab::python::define_module(m);
}

namespace schedlab::python {

namespace {

// Where the schedlab package may be: beside an installed executable (PREFIX/bin/schedlab ->
// PREFIX/SCHEDLAB_PYTHON_INSTALL_DIR), then the build tree.
std::vector<std::string> package_dirs() {
  std::vector<std::string> dirs;
  std::error_code error;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", error);
  if (!error)
    dirs.push_back((exe.parent_path().parent_path() / SCHEDLAB_PYTHON_INSTALL_DIR).string());
  dirs.emplace_back(SCHEDLAB_PYTHON_BUILD_DIR);
  return dirs;
}

void start_interpreter() {
  static std::once_flag once;
  std::call_once(once, [] {
    py::initialize_interpreter(false);  // no signal handlers: Ctrl-C stays the executable's
    {
      const py::module_ sys = py::module_::import("sys");
      sys.attr("modules")["schedlab._schedlab"] = py::module_::import("_schedlab_embedded");
      for (const std::string& dir : package_dirs()) {
        if (std::filesystem::exists(std::filesystem::path(dir) / "schedlab" / "__init__.py")) {
          sys.attr("path").attr("insert")(0, dir);
          break;
        }
      }
    }
    PyEval_SaveThread();
  });
}

// The last line of a Python error, e.g. "SyntaxError: invalid syntax (p.py, line 3)".
std::string error_line(py::error_already_set& error) {
  std::string text = error.what();
  const auto end = text.find('\n');
  return end == std::string::npos ? text : text.substr(0, end);
}

// "py:FILE.py:CLASS" registers that class; "py:FILE.py" every policy class of the file.
void load_python_policies(const std::string& name) {
  const std::string rest = name.substr(3);
  const auto colon = rest.rfind(':');
  const bool one_class = colon != std::string::npos && rest.substr(0, colon).ends_with(".py");
  const std::string file = one_class ? rest.substr(0, colon) : rest;
  if (!file.ends_with(".py"))
    throw ConfigError(fmt::format(
        "--policy {}: expected py:FILE.py:CLASS (a Python file and a class in it)", name));
  start_interpreter();
  const py::gil_scoped_acquire gil;
  py::object classes;
  try {
    classes = py::module_::import("schedlab").attr("_policy_classes")(file);
  } catch (py::error_already_set& error) {
    throw ConfigError(fmt::format("--policy {}: {}: {}", name, file, error_line(error)));
  }
  // A class that is no policy (e.g. an __init__ parameter without a default) is an input error.
  const auto register_class = [&](const std::string& policy_name, const py::object& policy_class) {
    try {
      register_python_policy(policy_name, policy_class);
    } catch (py::error_already_set& error) {
      throw ConfigError(fmt::format("--policy {}: {}: {}", name, file, error_line(error)));
    }
  };
  if (!one_class) {
    for (const auto& [class_name, policy_class] : classes.cast<py::dict>())
      register_class(fmt::format("py:{}:{}", file, class_name.cast<std::string>()),
                     py::reinterpret_borrow<py::object>(policy_class));
    return;
  }
  const std::string class_name = rest.substr(colon + 1);
  if (!classes.contains(class_name)) {
    std::string known;
    for (const auto& [key, unused] : classes.cast<py::dict>())
      known += (known.empty() ? "" : ", ") + key.cast<std::string>();
    throw ConfigError(fmt::format("--policy {}: {} has no policy class '{}' (policy classes: {})",
                                  name, file, class_name, known.empty() ? "none" : known));
  }
  register_class(name, classes[py::str(class_name)]);
}

[[maybe_unused]] const bool registered = [] {
  set_policy_source("py:", load_python_policies);
  return true;
}();

}  // namespace

}  // namespace schedlab::python
