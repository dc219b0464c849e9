#include "stderr_lines.hpp"

#include <algorithm>
#include <string>

#include <spdlog/pattern_formatter.h>

#include "schedlab/printable.hpp"

namespace schedlab::cli {

namespace {

// %* in a pattern: the message with its control characters escaped.
class PrintablePayload final : public spdlog::custom_flag_formatter {
 public:
  void format(const spdlog::details::log_msg& msg, const std::tm& /*time*/,
              spdlog::memory_buf_t& dest) override {
    const std::string text =
        printable_text(std::string_view(msg.payload.data(), msg.payload.size()));
    dest.append(text.data(), text.data() + text.size());
  }
  std::unique_ptr<custom_flag_formatter> clone() const override {
    return std::make_unique<PrintablePayload>();
  }
};

}  // namespace

std::unique_ptr<spdlog::formatter> stderr_log_formatter() {
  auto formatter = std::make_unique<spdlog::pattern_formatter>();
  formatter->add_flag<PrintablePayload>('*').set_pattern("schedlab: %l: %*");
  return formatter;
}

void print_error_line(const char* prefix, std::string_view message) {
  const std::string line = std::string(prefix) + printable_text(message) + "\n";
  std::fwrite(line.data(), 1, line.size(), stderr);
  std::fflush(stderr);
}

void print_policy_error(const char* prefix, std::string_view message) {
  constexpr std::string_view kTraceback = "\nTraceback (most recent call last):\n";
  const std::size_t at = message.find(kTraceback);
  std::string text = prefix + printable_text(message.substr(0, at)) + "\n";
  if (at != std::string_view::npos) {
    for (std::size_t from = at + 1; from < message.size();) {
      const std::size_t end = std::min(message.find('\n', from), message.size());
      text += printable_text(message.substr(from, end - from)) + "\n";
      from = end + 1;
    }
  }
  std::fwrite(text.data(), 1, text.size(), stderr);
  std::fflush(stderr);
}

}  // namespace schedlab::cli
