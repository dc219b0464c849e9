// The extension module schedlab._schedlab, imported by the schedlab package.
#include <string>

#include <pybind11/pybind11.h>
#include <spdlog/spdlog.h>

#include "bindings.hpp"
#include "schedlab/error.hpp"

PYBIND11_MODULE(_schedlab, m) {
  schedlab::python::define_module(m);
  // The library's log lines (e.g. "detected format 'swf'") at `level` and above: one of trace,
  // debug, info, warn, error, critical, off. The package sets "off" at import unless asked.
  m.def("set_log_level", [](const std::string& level) {
    const spdlog::level::level_enum parsed = spdlog::level::from_str(level);
    if (parsed == spdlog::level::off && level != "off")
      throw schedlab::InputError(
          "log_level: expected trace, debug, info, warn, error, critical or off, got '" + level +
          "'");
    spdlog::set_level(parsed);
  });
}
