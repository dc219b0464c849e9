#include "schedlab/demand_share.hpp"

#include <algorithm>
#include <limits>
#include <numeric>
#include <utility>

#include "schedlab/error.hpp"

namespace schedlab {

namespace {

constexpr double kUnbounded = std::numeric_limits<double>::infinity();

// Prefix sums of two quantities over positions 1..n that change one position at a time.
class PairFenwick {
 public:
  explicit PairFenwick(std::size_t n) : first_(n + 1, 0.0), second_(n + 1, 0.0) {}
  void add(std::size_t position, double first, double second) {
    for (std::size_t i = position; i < first_.size(); i += i & (~i + 1)) {
      first_[i] += first;
      second_[i] += second;
    }
  }
  std::pair<double, double> prefix(std::size_t position) const {
    std::pair<double, double> sum{0.0, 0.0};
    for (std::size_t i = position; i > 0; i -= i & (~i + 1)) {
      sum.first += first_[i];
      sum.second += second_[i];
    }
    return sum;
  }
  std::size_t size() const { return first_.size() - 1; }
  double first_at(std::size_t node) const { return first_[node]; }
  double second_at(std::size_t node) const { return second_[node]; }

 private:
  std::vector<double> first_;
  std::vector<double> second_;
};

// A stretch of constant state between two consecutive change instants.
struct Segment {
  double waiting_ms;  // its length while some job waits, else 0
  double lambda;      // the water level (kUnbounded when every demand is met)
};

// One tenant's constant state over segments [first, last).
struct Span {
  std::size_t first_segment;
  std::size_t last_segment;
  double level;  // demand / weight: the water level at which its demand is met
  double demand_gpus;
  double weight;
  double held_gpus;
  TenantIndex tenant;
};

}  // namespace

DemandShare::DemandShare(std::int64_t capacity_gpus, std::vector<double> weights)
    : capacity_gpus_(capacity_gpus), weights_(std::move(weights)) {
  SCHEDLAB_ASSERT(capacity_gpus_ >= 0, "a cluster has no negative GPU count");
  for (const double w : weights_) SCHEDLAB_ASSERT(w >= 0, "tenant weights are not negative");
}

void DemandShare::record(TimeMs time_ms, TenantIndex tenant, std::int64_t demand_gpus,
                         std::int64_t held_gpus, std::int64_t queued_jobs) {
  SCHEDLAB_ASSERT(tenant < weights_.size(), "a recorded tenant exists");
  SCHEDLAB_ASSERT(changes_.empty() || changes_.back().time_ms <= time_ms,
                  "demand changes are recorded in time order");
  SCHEDLAB_ASSERT(held_gpus >= 0 && demand_gpus >= held_gpus && queued_jobs >= 0,
                  "a tenant demands at least what it holds");
  changes_.push_back({time_ms, tenant, demand_gpus, held_gpus, queued_jobs});
}

std::vector<DemandShare::Totals> DemandShare::totals(TimeMs end_ms) const {
  const std::size_t tenants = weights_.size();
  // The levels demand / weight that tenants reach, sorted: positions of the level tree.
  std::vector<double> levels;
  for (const Change& c : changes_)
    if (weights_[c.tenant] > 0 && c.demand_gpus > 0)
      levels.push_back(static_cast<double>(c.demand_gpus) / weights_[c.tenant]);
  std::sort(levels.begin(), levels.end());
  levels.erase(std::unique(levels.begin(), levels.end()), levels.end());
  const auto position_of = [&](double level) {
    return static_cast<std::size_t>(std::lower_bound(levels.begin(), levels.end(), level) -
                                    levels.begin()) +
           1;
  };
  // Per level position: the demands and weights of the tenants at that level.
  PairFenwick by_level(levels.size());
  std::size_t top_step = 1;
  while (top_step * 2 <= levels.size()) top_step *= 2;
  const auto capacity = static_cast<double>(capacity_gpus_);
  double demand_total = 0;  // of the tenants with a positive weight
  double weight_total = 0;  // of those with a positive demand
  // The water level: the largest position p with demand(<= p) + level_p x weight(> p) <= capacity
  // has every tenant at or below it met; the others share what is left by weight.
  const auto water_level = [&]() {
    if (demand_total <= capacity) return kUnbounded;
    std::size_t position = 0;
    double demand_below = 0;
    double weight_below = 0;
    for (std::size_t step = levels.empty() ? 0 : top_step; step > 0; step /= 2) {
      const std::size_t next = position + step;
      if (next > levels.size()) continue;
      const double demand = demand_below + by_level.first_at(next);
      const double weight = weight_below + by_level.second_at(next);
      if (demand + levels[next - 1] * (weight_total - weight) <= capacity) {
        position = next;
        demand_below = demand;
        weight_below = weight;
      }
    }
    const double weight_above = weight_total - weight_below;
    SCHEDLAB_ASSERT(weight_above > 0, "an unmet demand has a weight");
    return (capacity - demand_below) / weight_above;
  };

  struct TenantState {
    std::int64_t demand_gpus = 0;
    std::int64_t held_gpus = 0;
    std::size_t since_segment = 0;
  };
  std::vector<TenantState> state(tenants);
  std::vector<Segment> segments;
  std::vector<Span> spans;
  TimeMs segment_start_ms = changes_.empty() ? end_ms : changes_.front().time_ms;
  std::int64_t queued_jobs = 0;
  const auto close_segment = [&](TimeMs until_ms) {
    if (until_ms <= segment_start_ms) return;
    const double length_ms = static_cast<double>(until_ms - segment_start_ms);
    segments.push_back({queued_jobs > 0 ? length_ms : 0.0, water_level()});
    segment_start_ms = until_ms;
  };
  const auto close_span = [&](TenantIndex tenant) {
    TenantState& s = state[tenant];
    if (s.since_segment < segments.size() && s.demand_gpus > 0) {
      const double weight = weights_[tenant];
      const auto demand = static_cast<double>(s.demand_gpus);
      spans.push_back({s.since_segment, segments.size(), weight > 0 ? demand / weight : kUnbounded,
                       demand, weight, static_cast<double>(s.held_gpus), tenant});
    }
    s.since_segment = segments.size();
  };
  for (const Change& c : changes_) {
    close_segment(c.time_ms);
    close_span(c.tenant);
    TenantState& s = state[c.tenant];
    const double weight = weights_[c.tenant];
    if (weight > 0) {
      if (s.demand_gpus > 0) {
        by_level.add(position_of(static_cast<double>(s.demand_gpus) / weight),
                     -static_cast<double>(s.demand_gpus), -weight);
        demand_total -= static_cast<double>(s.demand_gpus);
        weight_total -= weight;
      }
      if (c.demand_gpus > 0) {
        by_level.add(position_of(static_cast<double>(c.demand_gpus) / weight),
                     static_cast<double>(c.demand_gpus), weight);
        demand_total += static_cast<double>(c.demand_gpus);
        weight_total += weight;
      }
    }
    s.demand_gpus = c.demand_gpus;
    s.held_gpus = c.held_gpus;
    queued_jobs = c.queued_jobs;
  }
  close_segment(end_ms);
  for (TenantIndex t = 0; t < tenants; ++t) close_span(t);

  // Received: held x waiting time of the span, from prefix sums of the waiting time.
  std::vector<double> waiting_before(segments.size() + 1, 0.0);
  for (std::size_t k = 0; k < segments.size(); ++k)
    waiting_before[k + 1] = waiting_before[k] + segments[k].waiting_ms;
  std::vector<Totals> out(tenants);
  for (const Span& span : spans)
    out[span.tenant].received_gpu_ms +=
        span.held_gpus * (waiting_before[span.last_segment] - waiting_before[span.first_segment]);
  // Fair: demand over the waiting time in which the level is at or above the span's level, plus
  // weight x the level integrated over the rest. Spans in increasing level meet the segments in
  // increasing level: each segment enters the tree (its time, its level x time) once.
  std::vector<std::size_t> segment_order(segments.size());
  std::iota(segment_order.begin(), segment_order.end(), std::size_t{0});
  std::stable_sort(segment_order.begin(), segment_order.end(), [&](std::size_t a, std::size_t b) {
    return segments[a].lambda < segments[b].lambda;
  });
  std::vector<std::size_t> span_order(spans.size());
  std::iota(span_order.begin(), span_order.end(), std::size_t{0});
  std::stable_sort(span_order.begin(), span_order.end(),
                   [&](std::size_t a, std::size_t b) { return spans[a].level < spans[b].level; });
  PairFenwick below_level(segments.size());  // (waiting time, level x waiting time)
  std::size_t entered = 0;
  for (const std::size_t index : span_order) {
    const Span& span = spans[index];
    if (span.weight <= 0) continue;  // allocated nothing
    while (entered < segment_order.size() && segments[segment_order[entered]].lambda < span.level) {
      const Segment& s = segments[segment_order[entered]];
      below_level.add(segment_order[entered] + 1, s.waiting_ms, s.lambda * s.waiting_ms);
      ++entered;
    }
    const auto [time_to, area_to] = below_level.prefix(span.last_segment);
    const auto [time_from, area_from] = below_level.prefix(span.first_segment);
    const double waiting_ms =
        waiting_before[span.last_segment] - waiting_before[span.first_segment];
    const double below_ms = time_to - time_from;
    out[span.tenant].fair_gpu_ms +=
        span.demand_gpus * (waiting_ms - below_ms) + span.weight * (area_to - area_from);
  }
  return out;
}

std::vector<double> weighted_max_min_allocation(double capacity, const std::vector<double>& demands,
                                                const std::vector<double>& weights) {
  SCHEDLAB_ASSERT(demands.size() == weights.size(), "one weight per demand");
  std::vector<double> allocation(demands.size(), 0.0);
  std::vector<std::size_t> open;  // positive weight and demand, by the level that meets them
  for (std::size_t i = 0; i < demands.size(); ++i)
    if (weights[i] > 0 && demands[i] > 0) open.push_back(i);
  std::stable_sort(open.begin(), open.end(), [&](std::size_t a, std::size_t b) {
    return demands[a] / weights[a] < demands[b] / weights[b];
  });
  double left = capacity;
  double weight_left = 0;
  for (const std::size_t i : open) weight_left += weights[i];
  for (const std::size_t i : open) {
    const double share = left / weight_left * weights[i];
    allocation[i] = std::min(demands[i], share);
    left -= allocation[i];
    weight_left -= weights[i];
  }
  return allocation;
}

}  // namespace schedlab
