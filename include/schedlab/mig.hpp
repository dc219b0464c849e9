// MIG (Multi-Instance GPU): the geometries of MIG-capable GPU models, the profiles a job may ask
// for, and the layout of instances on one GPU (docs/gpu-sharing.md, "MIG slices").
//
// Contracts:
// - A geometry splits a GPU into kMigSlots memory slots. A profile takes `slots` consecutive
//   slots starting at one of its valid starts: NVIDIA's placement table (MIG user guide,
//   "Supported MIG Profiles"; `nvidia-smi mig -lgipp`). A layout is valid when every instance
//   sits at a valid start of its profile and no two instances share a slot; its compute slices
//   then never exceed the GPU's 7.
// - An instance is idle or busy (held by one job). A layout changes only by destroying idle
//   instances and creating one; busy instances never move (mig_take).
// - An instance holds slots x 125 milli of its GPU (mig_instance_milli): 7g.80gb the whole GPU.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace schedlab {

inline constexpr int kMigSlots = 8;
inline constexpr int kNoMigProfile = -1;

struct MigProfile {
  std::string name;         // e.g. "3g.40gb"
  int compute_slices = 0;   // of 7
  int slots = 0;            // memory slots of kMigSlots
  std::uint8_t starts = 0;  // bit s set = may start at slot s
};

struct MigGeometry {
  std::string name;  // e.g. "a100-80gb"
  std::vector<MigProfile> profiles;

  // Index of the profile called `profile_name`, or kNoMigProfile.
  int profile_index(std::string_view profile_name) const;
};

// The built-in geometries: a100-40gb, a100-80gb, h100-80gb.
const std::vector<MigGeometry>& builtin_mig_geometries();
// The geometry called `name` (exact, lower case), or null.
const MigGeometry* find_mig_geometry(std::string_view name);
// "a100-40gb, a100-80gb, h100-80gb" (messages).
std::string mig_geometry_names();
// Whether some built-in geometry has a profile called `name`.
bool is_mig_profile_name(std::string_view name);

inline int mig_instance_milli(const MigProfile& profile) {
  return profile.slots * 125;
}

struct MigInstance {
  int profile = 0;  // index into the geometry's profiles
  int start = 0;    // first slot
  bool busy = false;
};

// The instances of one GPU, sorted by start.
struct MigLayout {
  std::vector<MigInstance> instances;

  std::uint8_t busy_slots(const MigGeometry& geometry) const;
  bool any_busy() const;
};

// Where an instance of `profile` goes on `layout`: an idle instance of it (the lowest start), or
// else a new one at the lowest valid start whose slots no busy instance holds (`reconfigure`:
// the idle instances on those slots are destroyed first). Nothing when neither exists.
struct MigSpot {
  int start = 0;
  bool reconfigure = false;
};
std::optional<MigSpot> mig_spot(const MigGeometry& geometry, const MigLayout& layout, int profile);
// Takes the spot mig_spot gives and returns it; InvariantError when there is none.
MigSpot mig_take(const MigGeometry& geometry, MigLayout& layout, int profile);
// Marks the busy instance of `profile` at `start` idle again; InvariantError when there is none.
void mig_give_back(MigLayout& layout, int profile, int start);
// InvariantError unless the layout is valid (see above); `where` names the GPU in the message.
void check_mig_layout(const MigGeometry& geometry, const MigLayout& layout,
                      const std::string& where);

}  // namespace schedlab
