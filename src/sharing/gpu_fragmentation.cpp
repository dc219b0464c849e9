#include "schedlab/gpu_fragmentation.hpp"

#include <algorithm>
#include <cstring>
#include <map>
#include <tuple>

#include <fmt/format.h>

#include "schedlab/error.hpp"

namespace schedlab {

namespace {

using ClassKey = std::tuple<std::int64_t, int, int, std::uint64_t>;

ClassKey class_key(const SharedTask& task) {
  return {task.cpu_milli, task.gpus, task.gpu_milli, task.gpu_type_mask};
}

template <typename T>
void append_bytes(std::string& key, T value) {
  char bytes[sizeof(T)];
  std::memcpy(bytes, &value, sizeof(T));
  key.append(bytes, sizeof(T));
}

}  // namespace

TaskMix task_mix(const std::vector<SharedTask>& tasks, double coverage) {
  if (tasks.empty()) throw InputError("task mix: no tasks");
  if (!(coverage > 0.0 && coverage <= 1.0))
    throw InputError(fmt::format("task mix: coverage {} is outside (0, 1]", coverage));
  std::map<ClassKey, TaskClass> by_key;
  for (const auto& task : tasks) {
    auto [it, inserted] = by_key.try_emplace(class_key(task));
    if (inserted) {
      it->second.task.cpu_milli = task.cpu_milli;
      it->second.task.gpus = task.gpus;
      it->second.task.gpu_milli = task.gpu_milli;
      it->second.task.gpu_type_mask = task.gpu_type_mask;
    }
    ++it->second.count;
  }
  std::vector<TaskClass> sorted;
  sorted.reserve(by_key.size());
  for (auto it = by_key.rbegin(); it != by_key.rend(); ++it) sorted.push_back(it->second);
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const TaskClass& a, const TaskClass& b) { return a.count > b.count; });
  TaskMix mix;
  mix.tasks = tasks.size();
  std::size_t covered = 0;
  const double needed = coverage * static_cast<double>(tasks.size());
  for (auto& c : sorted) {
    if (static_cast<double>(covered) >= needed) break;
    covered += c.count;
    mix.classes.push_back(c);
  }
  for (auto& c : mix.classes)
    c.popularity = static_cast<double>(c.count) / static_cast<double>(covered);
  return mix;
}

std::int64_t fragmentation_milli(const SharedNode& node, const SharedTask& task) {
  const std::int64_t free_total = node.gpu_milli_free_total();
  if (task.gpus == 0 || !type_accepted(node, task) || node.cpu_milli_free < task.cpu_milli)
    return free_total;
  std::int64_t unusable = 0;
  int able = 0;
  for (const int left : node.gpu_milli_free) {
    if (left >= task.gpu_milli)
      ++able;
    else
      unusable += left;
  }
  return able >= task.gpus ? unusable : free_total;
}

double expected_fragmentation_milli(const SharedNode& node, const TaskMix& mix) {
  if (node.gpu_count() == 0) return 0.0;
  double sum = 0.0;
  for (const auto& c : mix.classes)
    sum += c.popularity * static_cast<double>(fragmentation_milli(node, c.task));
  return sum;
}

double FragmentationMeter::node_milli(const SharedNode& node) {
  if (node.gpu_count() == 0) return 0.0;
  sorted_.assign(node.gpu_milli_free.begin(), node.gpu_milli_free.end());
  std::sort(sorted_.begin(), sorted_.end());
  key_.clear();
  append_bytes(key_, node.gpu_type);
  append_bytes(key_, node.cpu_milli_free);
  for (const int left : sorted_) append_bytes(key_, static_cast<std::int16_t>(left));
  const auto it = cache_.find(key_);
  if (it != cache_.end()) return it->second;
  const double value = expected_fragmentation_milli(node, mix_);
  cache_.emplace(key_, value);
  return value;
}

}  // namespace schedlab
