// The library's invariant observer (include/schedlab/invariant_observer.hpp), under the name the
// tests use.
#pragma once

#include "schedlab/invariant_observer.hpp"

namespace schedlab::testing {
using schedlab::InvariantObserver;
}  // namespace schedlab::testing
