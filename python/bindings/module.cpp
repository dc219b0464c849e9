// The extension module schedlab._schedlab, imported by the schedlab package.
#include <pybind11/pybind11.h>

#include "bindings.hpp"

PYBIND11_MODULE(_schedlab, m) {
  schedlab::python::define_module(m);
}
