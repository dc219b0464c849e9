// Plug-ins: policies and placement strategies compiled outside the tree into a shared library
// and loaded at run time (`--plugin FILE`, docs/writing-policies.md).
//
// Contract: a plug-in registers its components with the same macros as the built-in ones
// (SCHEDLAB_REGISTER_POLICY, SCHEDLAB_REGISTER_PLACEMENT) and holds, once, the ABI record of
// the schedlab it was compiled against (SCHEDLAB_PLUGIN_ABI(); schedlab_add_policy in the
// installed CMake package adds it). load_plugin reads that record from the file before loading
// it and refuses a plug-in of another version, so such a library is never run. A plug-in uses
// the symbols of the executable that loads it: it links none of schedlab's libraries.
#pragma once

#include <string>
#include <vector>

#include "schedlab/version.hpp"

#define SCHEDLAB_PLUGIN_STRINGIFY_INNER(x) #x
#define SCHEDLAB_PLUGIN_STRINGIFY(x) SCHEDLAB_PLUGIN_STRINGIFY_INNER(x)
#if defined(_GLIBCXX_USE_CXX11_ABI)
#define SCHEDLAB_PLUGIN_CXX11_ABI SCHEDLAB_PLUGIN_STRINGIFY(_GLIBCXX_USE_CXX11_ABI)
#else
#define SCHEDLAB_PLUGIN_CXX11_ABI "none"
#endif

// What a plug-in's ABI record starts with; load_plugin looks for it in the file.
#define SCHEDLAB_PLUGIN_ABI_TAG "schedlab-plugin-abi:"
// The layout of the registration records a plug-in builds (PolicyInfo, PolicyParamInfo,
// PlacementInfo), counted up whenever one of them changes within a version: 2 added the policy
// card's fields (PolicyCardFacts, PolicyParamInfo::unit). A record without the field is layout 1.
#define SCHEDLAB_PLUGIN_REGISTRATION_LAYOUT "2"
// This build's ABI record: the schedlab version, the C++ library ABI (std::string layout) and
// the registration layout.
#define SCHEDLAB_PLUGIN_ABI_RECORD                                \
  SCHEDLAB_PLUGIN_ABI_TAG "version=" SCHEDLAB_VERSION_STRING      \
                          ";cxx11-abi=" SCHEDLAB_PLUGIN_CXX11_ABI \
                          ";registration=" SCHEDLAB_PLUGIN_REGISTRATION_LAYOUT ";"

// Defines the plug-in's ABI record; put it in exactly one source file of the plug-in.
#define SCHEDLAB_PLUGIN_ABI()                                                                \
  extern "C" __attribute__((used, visibility("default"))) const char schedlab_plugin_abi[] = \
      SCHEDLAB_PLUGIN_ABI_RECORD

namespace schedlab {

// A plug-in library loaded into this process and the components it registered.
struct LoadedPlugin {
  std::string path;                     // as given
  std::string canonical_path;           // the file, once: loading it again returns this record
  std::vector<std::string> policies;    // registered names, sorted
  std::vector<std::string> placements;  // registered names, sorted
};

// Loads the plug-in library at `path` and returns what it registered; loading a library that is
// loaded already returns the record of its first load. Throws ConfigError with one line
// "--plugin PATH: ..." when the file cannot be read, holds no ABI record, is not an ELF shared
// library of this process's class, byte order and machine whose headers and the file bytes of
// its segments and sections lie inside the file (checked before the dynamic loader maps it, so
// a truncated library never faults), holds a malformed ABI record, was built against another
// schedlab version, C++ library ABI or registration layout (both named), cannot be loaded (the
// loader's message), or
// registers a name that is taken.
LoadedPlugin load_plugin(const std::string& path);

// The plug-ins loaded in this process, in load order.
const std::vector<LoadedPlugin>& loaded_plugins();

}  // namespace schedlab
