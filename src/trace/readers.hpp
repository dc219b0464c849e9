// Internal: the built-in trace formats, one factory per reader file.
#pragma once

#include "schedlab/trace.hpp"

namespace schedlab {

TraceFormat native_trace_format();

}  // namespace schedlab
