// One way to register named components (policies, placement strategies, trace formats): a
// registry per kind of component, filled at static-initialization time by SCHEDLAB_REGISTER in
// the component's own file (built in, or in a plug-in library when it is loaded).
//
// Contract: names are unique within a kind (a second registration of a name is an invariant
// violation, or, from a plug-in, a reason to refuse it); listings are sorted by name, so they never
// depend on link or load order.
#pragma once

#include <algorithm>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "schedlab/error.hpp"
#include "schedlab/names.hpp"

namespace schedlab {

// `Info` has a `std::string name` member.
template <typename Info>
class Registry {
 public:
  static Registry& instance() {
    static Registry registry;
    return registry;
  }

  // Adds `info`. A name that is taken is an invariant violation, except while a plug-in loads
  // (collect_taken_names(true)): then the entry is dropped and its name kept for
  // take_taken_names(), so that load_plugin can refuse the plug-in with a message.
  bool add(Info info) {
    if (find(info.name) != nullptr) {
      SCHEDLAB_ASSERT(collect_taken_, "registered names are unique within a kind");
      taken_.push_back(info.name);
      return false;
    }
    entries_.push_back(std::move(info));
    std::sort(entries_.begin(), entries_.end(),
              [](const Info& a, const Info& b) { return a.name < b.name; });
    return true;
  }

  // Adds `info`, or replaces the entry of its name.
  void add_or_replace(Info info) {
    for (Info& entry : entries_)
      if (entry.name == info.name) {
        entry = std::move(info);
        return;
      }
    add(std::move(info));
  }

  // Sorted by name.
  const std::vector<Info>& entries() const { return entries_; }

  const Info* find(std::string_view name) const {
    for (const Info& info : entries_)
      if (info.name == name) return &info;
    return nullptr;
  }

  // find(name), else the entry whose name equals it without regard to case and '_'/'-'.
  const Info* find_loose(std::string_view name) const {
    if (const Info* exact = find(name)) return exact;
    for (const Info& info : entries_)
      if (same_name(info.name, name)) return &info;
    return nullptr;
  }

  // The registered names, sorted.
  std::vector<std::string> name_list() const {
    std::vector<std::string> out;
    out.reserve(entries_.size());
    for (const Info& info : entries_) out.push_back(info.name);
    return out;
  }

  // "a, b, c": the registered names, for error messages.
  std::string names() const {
    std::string out;
    for (const Info& info : entries_) out += (out.empty() ? "" : ", ") + info.name;
    return out;
  }

  void collect_taken_names(bool on) { collect_taken_ = on; }
  std::vector<std::string> take_taken_names() { return std::exchange(taken_, {}); }

 private:
  Registry() = default;
  std::vector<Info> entries_;
  bool collect_taken_ = false;
  std::vector<std::string> taken_;
};

}  // namespace schedlab

#define SCHEDLAB_CONCAT_INNER(a, b) a##b
#define SCHEDLAB_CONCAT(a, b) SCHEDLAB_CONCAT_INNER(a, b)
// Registers `Info{...}` in Registry<KIND> when the enclosing library is initialized.
#define SCHEDLAB_REGISTER(KIND, ...)                                            \
  namespace {                                                                   \
  [[maybe_unused]] const bool SCHEDLAB_CONCAT(schedlab_registered_, __LINE__) = \
      ::schedlab::Registry<KIND>::instance().add(__VA_ARGS__);                  \
  }
