#include "schedlab/mig.hpp"

#include <algorithm>
#include <bit>

#include <fmt/format.h>

#include "schedlab/error.hpp"

namespace schedlab {

namespace {

constexpr std::uint8_t kStartsAll7 = 0b0111'1111;  // 0..6
constexpr std::uint8_t kStartsEven = 0b0101'0101;  // 0, 2, 4, 6
constexpr std::uint8_t kStarts024 = 0b0001'0101;   // 0, 2, 4
constexpr std::uint8_t kStarts04 = 0b0001'0001;    // 0, 4
constexpr std::uint8_t kStart0 = 0b0000'0001;      // 0

// The six GPU-instance profiles of a 7-compute-slice, 8-memory-slot GPU, named by its memory.
std::vector<MigProfile> seven_slice_profiles(int slot_gb) {
  auto name = [slot_gb](int compute, int slots) {
    return fmt::format("{}g.{}gb", compute, slots * slot_gb);
  };
  return {
      {name(1, 1), 1, 1, kStartsAll7}, {name(1, 2), 1, 2, kStartsEven},
      {name(2, 2), 2, 2, kStarts024},  {name(3, 4), 3, 4, kStarts04},
      {name(4, 4), 4, 4, kStart0},     {name(7, 8), 7, 8, kStart0},
  };
}

std::uint8_t slot_mask(int start, int slots) {
  return static_cast<std::uint8_t>(((1U << slots) - 1U) << start);
}

}  // namespace

int MigGeometry::profile_index(std::string_view profile_name) const {
  for (std::size_t p = 0; p < profiles.size(); ++p)
    if (profiles[p].name == profile_name) return static_cast<int>(p);
  return kNoMigProfile;
}

const std::vector<MigGeometry>& builtin_mig_geometries() {
  // A100 40GB: 5 GB slots (1g.5gb .. 7g.40gb); A100 80GB and H100 80GB: 10 GB slots.
  static const std::vector<MigGeometry> geometries = {
      {"a100-40gb", seven_slice_profiles(5)},
      {"a100-80gb", seven_slice_profiles(10)},
      {"h100-80gb", seven_slice_profiles(10)},
  };
  return geometries;
}

const MigGeometry* find_mig_geometry(std::string_view name) {
  for (const MigGeometry& g : builtin_mig_geometries())
    if (g.name == name) return &g;
  return nullptr;
}

std::string mig_geometry_names() {
  std::string out;
  for (const MigGeometry& g : builtin_mig_geometries()) out += (out.empty() ? "" : ", ") + g.name;
  return out;
}

bool is_mig_profile_name(std::string_view name) {
  return std::any_of(builtin_mig_geometries().begin(), builtin_mig_geometries().end(),
                     [&](const MigGeometry& g) { return g.profile_index(name) != kNoMigProfile; });
}

std::uint8_t MigLayout::busy_slots(const MigGeometry& geometry) const {
  std::uint8_t mask = 0;
  for (const MigInstance& i : instances)
    if (i.busy)
      mask |= slot_mask(i.start, geometry.profiles[static_cast<std::size_t>(i.profile)].slots);
  return mask;
}

bool MigLayout::any_busy() const {
  return std::any_of(instances.begin(), instances.end(),
                     [](const MigInstance& i) { return i.busy; });
}

std::optional<MigSpot> mig_spot(const MigGeometry& geometry, const MigLayout& layout, int profile) {
  for (const MigInstance& i : layout.instances)
    if (!i.busy && i.profile == profile) return MigSpot{i.start, false};
  const MigProfile& p = geometry.profiles[static_cast<std::size_t>(profile)];
  const std::uint8_t busy = layout.busy_slots(geometry);
  for (int start = 0; start + p.slots <= kMigSlots; ++start)
    if ((p.starts >> start & 1U) != 0 && (busy & slot_mask(start, p.slots)) == 0)
      return MigSpot{start, true};
  return std::nullopt;
}

MigSpot mig_take(const MigGeometry& geometry, MigLayout& layout, int profile) {
  const auto spot = mig_spot(geometry, layout, profile);
  SCHEDLAB_ASSERT(spot.has_value(),
                  fmt::format("no room for a {} instance",
                              geometry.profiles[static_cast<std::size_t>(profile)].name));
  auto& instances = layout.instances;
  if (spot->reconfigure) {
    const std::uint8_t taken =
        slot_mask(spot->start, geometry.profiles[static_cast<std::size_t>(profile)].slots);
    std::erase_if(instances, [&](const MigInstance& i) {
      return !i.busy &&
             (slot_mask(i.start, geometry.profiles[static_cast<std::size_t>(i.profile)].slots) &
              taken) != 0;
    });
    const auto at = std::find_if(instances.begin(), instances.end(),
                                 [&](const MigInstance& i) { return i.start > spot->start; });
    instances.insert(at, MigInstance{profile, spot->start, true});
  } else {
    for (MigInstance& i : instances)
      if (!i.busy && i.profile == profile && i.start == spot->start) {
        i.busy = true;
        break;
      }
  }
  return *spot;
}

void mig_give_back(MigLayout& layout, int profile, int start) {
  for (MigInstance& i : layout.instances) {
    if (i.busy && i.profile == profile && i.start == start) {
      i.busy = false;
      return;
    }
  }
  throw InvariantError(
      fmt::format("no busy MIG instance of profile {} at slot {} to give back", profile, start));
}

void check_mig_layout(const MigGeometry& geometry, const MigLayout& layout,
                      const std::string& where) {
  std::uint8_t used = 0;
  int compute = 0;
  int last_start = -1;
  for (const MigInstance& i : layout.instances) {
    SCHEDLAB_ASSERT(
        i.profile >= 0 && static_cast<std::size_t>(i.profile) < geometry.profiles.size(),
        fmt::format("{}: MIG instance of unknown profile {}", where, i.profile));
    const MigProfile& p = geometry.profiles[static_cast<std::size_t>(i.profile)];
    SCHEDLAB_ASSERT(
        i.start >= 0 && i.start + p.slots <= kMigSlots && (p.starts >> i.start & 1U),
        fmt::format("{}: {} instance at slot {}, not a valid start", where, p.name, i.start));
    SCHEDLAB_ASSERT(i.start > last_start,
                    fmt::format("{}: MIG instances not sorted by start", where));
    const std::uint8_t mask = slot_mask(i.start, p.slots);
    SCHEDLAB_ASSERT((used & mask) == 0, fmt::format("{}: {} instance at slot {} overlaps another",
                                                    where, p.name, i.start));
    used |= mask;
    compute += p.compute_slices;
    last_start = i.start;
  }
  SCHEDLAB_ASSERT(compute <= 7,
                  fmt::format("{}: MIG layout uses {} compute slices of 7", where, compute));
}

}  // namespace schedlab
