#include "schedlab/summary_fields.hpp"

#include <algorithm>
#include <array>
#include <cmath>

#include <fmt/format.h>

namespace schedlab {

namespace {

void flatten_into(const nlohmann::ordered_json& node, const std::string& prefix,
                  std::vector<NumericField>& out) {
  for (const auto& [key, value] : node.items()) {
    const std::string path = prefix.empty() ? key : prefix + "." + key;
    if (value.is_object()) {
      flatten_into(value, path, out);
    } else if (value.is_number()) {
      out.push_back({path, value.get<double>()});
    }
  }
}

}  // namespace

std::vector<NumericField> flatten_numeric(const nlohmann::ordered_json& object) {
  std::vector<NumericField> out;
  if (object.is_object()) flatten_into(object, "", out);
  return out;
}

std::optional<double> numeric_at(const nlohmann::ordered_json& object, const std::string& key) {
  const nlohmann::ordered_json* node = &object;
  std::size_t begin = 0;
  while (true) {
    if (!node->is_object()) return std::nullopt;
    const std::size_t dot = key.find('.', begin);
    const std::string part = key.substr(begin, dot == std::string::npos ? dot : dot - begin);
    const auto it = node->find(part);
    if (it == node->end()) return std::nullopt;
    node = &*it;
    if (dot == std::string::npos) break;
    begin = dot + 1;
  }
  if (!node->is_number()) return std::nullopt;
  return node->get<double>();
}

std::string summary_trace_path(const nlohmann::ordered_json& summary) {
  if (!summary.is_object()) return "";
  const auto it = summary.find("trace");
  if (it == summary.end()) return "";
  if (it->is_string()) return it->get<std::string>();
  if (it->is_object() && it->contains("path") && (*it)["path"].is_string())
    return (*it)["path"].get<std::string>();
  return "";
}

std::string format_number(double value) {
  if (value == 0.0) return "0";  // no "-0"
  return fmt::format("{}", value);
}

double student_t_975(std::size_t df) {
  // t_{0.975, df} for df = 1..30.
  static constexpr std::array<double, 30> kTable = {
      12.7062047, 4.30265273, 3.18244631, 2.77644511, 2.57058184, 2.44691185,
      2.36462425, 2.30600414, 2.26215716, 2.22813885, 2.20098516, 2.17881283,
      2.16036866, 2.14478669, 2.13144955, 2.11990530, 2.10981558, 2.10092204,
      2.09302405, 2.08596345, 2.07961384, 2.07387307, 2.06865761, 2.06389856,
      2.05953855, 2.05552944, 2.05183052, 2.04840714, 2.04522964, 2.04227246};
  if (df == 0) return 0.0;
  if (df <= kTable.size()) return kTable[df - 1];
  // Cornish-Fisher expansion around the normal quantile; error < 1e-6 for df > 30.
  const double z = 1.959963984540054;
  const double n = static_cast<double>(df);
  const double z3 = z * z * z, z5 = z3 * z * z, z7 = z5 * z * z;
  return z + (z3 + z) / (4 * n) + (5 * z5 + 16 * z3 + 3 * z) / (96 * n * n) +
         (3 * z7 + 19 * z5 + 17 * z3 - 15 * z) / (384 * n * n * n);
}

std::string replicate_count_note(std::size_t n) {
  constexpr std::size_t kEnough = 5;
  if (n == 0) return "No replicate finished: no values, intervals or tests.";
  if (n == 1)
    return "One replicate: too few for a confidence interval or a significance test (2 or more "
           "are needed); values are single runs.";
  if (n < kEnough)
    return fmt::format(
        "Only {} replicates: the 95% intervals use Student's t with {} degree{} of freedom "
        "(t = {:.2f}) and are wide; {} or more replicates narrow them.",
        n, n - 1, n == 2 ? "" : "s", student_t_975(n - 1), kEnough);
  return "";
}

MeanCi mean_ci95(const std::vector<double>& sample) {
  MeanCi out;
  out.n = sample.size();
  if (sample.empty()) return out;
  double sum = 0.0;
  for (const double v : sample) sum += v;
  out.mean = sum / static_cast<double>(out.n);
  out.min = *std::min_element(sample.begin(), sample.end());
  out.max = *std::max_element(sample.begin(), sample.end());
  if (out.n < 2 || out.min == out.max) return out;  // identical values: exactly no spread
  double squares = 0.0;
  for (const double v : sample) squares += (v - out.mean) * (v - out.mean);
  out.sd = std::sqrt(squares / static_cast<double>(out.n - 1));
  out.ci95 = student_t_975(out.n - 1) * out.sd / std::sqrt(static_cast<double>(out.n));
  return out;
}

}  // namespace schedlab
