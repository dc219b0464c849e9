// A value of a cell's definition as results.csv, aggregate.csv and cell keys print it: a string
// as it is, a number in its shortest exact form, params as "k=v;k=v", anything else as JSON.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace schedlab {

std::string json_scalar_text(const nlohmann::ordered_json& value);

}  // namespace schedlab
