// The schedlab version: the one place it is written (CMakeLists.txt reads it from here for the
// package version, `schedlab --version` prints it, and plug-ins record it,
// include/schedlab/plugin.hpp).
#pragma once

#define SCHEDLAB_VERSION_STRING "0.1.0"
