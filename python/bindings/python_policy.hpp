// Python-written policies: a Python class with the hooks of Policy runs as a policy of the
// engine, seeing the same read-only context and making the same decisions as a C++ policy
// (docs/python.md).
//
// Contract: every hook call holds the GIL for its duration only, so the engine runs without it
// between calls. The context, decision and job objects a hook receives are valid during the run
// of the policy that received them; used later they raise RuntimeError, never read freed state.
// A Python exception in a hook stops the run: it surfaces as PythonPolicyError, whose message
// names the policy, the hook and the simulated time and carries the Python traceback, and which
// holds the Python exception itself so that the Python module can raise it again.
#pragma once

#include <memory>
#include <string>

#include <pybind11/pybind11.h>

#include "schedlab/error.hpp"
#include "schedlab/policy.hpp"

// Hidden, as pybind11's own types are: nothing here is used outside the module.
namespace schedlab {
#pragma GCC visibility push(hidden)
namespace python {

// A reference to a Python object that may be dropped on any thread, with or without the GIL.
// Objects of registered policies live as long as the process: they are kept, never released.
class SharedPyObject {
 public:
  SharedPyObject() = default;
  explicit SharedPyObject(pybind11::object object);
  const pybind11::object& get() const { return *object_; }
  explicit operator bool() const { return object_ != nullptr; }

 private:
  std::shared_ptr<pybind11::object> object_;
};

class PythonPolicyError : public PolicyError {
 public:
  PythonPolicyError(const std::string& message, SharedPyObject exception, std::string note)
      : PolicyError(message), exception_(std::move(exception)), note_(std::move(note)) {}
  // The exception the policy raised, and what to add to it: where in the run it was raised.
  const SharedPyObject& exception() const { return exception_; }
  const std::string& note() const { return note_; }

 private:
  SharedPyObject exception_;
  std::string note_;
};

// Registers the Python class `policy_class` as the policy `name` (replacing an earlier
// registration of that name): its docstring's first line is the summary, the keyword
// parameters of its __init__ with their defaults are its parameters (values are converted to
// the default's type), and `uses_tenants` is its class attribute of that name. Needs the GIL.
void register_python_policy(const std::string& name, const pybind11::object& policy_class);

// Defines the context, job, queue, cluster, what-if and decision classes in `module`.
void define_policy_classes(pybind11::module_& module);

}  // namespace python
#pragma GCC visibility pop
}  // namespace schedlab
