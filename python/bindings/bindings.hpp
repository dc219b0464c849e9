// The schedlab Python module's C++ core (`schedlab._schedlab`): traces, runs and their outputs,
// the policy registry, and the policy classes of python_policy.hpp. The Python package
// (python/schedlab/__init__.py) builds the documented API on it (docs/python.md).
#pragma once

#include <pybind11/pybind11.h>

// Hidden, as pybind11's own types are: nothing here is used outside the module.
namespace schedlab {
#pragma GCC visibility push(hidden)
namespace python {

// Defines the module's classes and functions in `module`. The same definitions serve the
// extension module and the interpreter embedded in the schedlab executable.
void define_module(pybind11::module_& module);

}  // namespace python
#pragma GCC visibility pop
}  // namespace schedlab
