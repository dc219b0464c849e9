// Node events of the cluster models carry (generation << 2 | cause) in Event::attempt. A model
// keeps a generation per node, bumped at every state change of the node, and drops an event
// whose generation is no longer the node's: the node changed state since it was pushed.
#pragma once

#include <cstdint>

namespace schedlab {

enum class NodeEventCause : std::uint32_t {
  kFailure = 0,  // kNodeDown: the node fails (failure model)
  kIdle = 1,     // kNodeDown: an idle node's power-off timer (power model)
  kRepair = 2,   // kNodeUp: the failed node is repaired (failure model)
  kBoot = 3,     // kNodeUp: the booting node is ready (power model)
};

inline constexpr std::uint32_t kNodeGenerationMask = 0x3FFFFFFFu;

inline std::uint32_t node_stamp(std::uint32_t generation, NodeEventCause cause) {
  return ((generation & kNodeGenerationMask) << 2) | static_cast<std::uint32_t>(cause);
}
inline NodeEventCause node_event_cause(std::uint32_t stamp) {
  return static_cast<NodeEventCause>(stamp & 3u);
}
inline bool node_generation_matches(std::uint32_t stamp, std::uint32_t generation) {
  return (stamp >> 2) == (generation & kNodeGenerationMask);
}

}  // namespace schedlab
