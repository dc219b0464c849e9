#include "schedlab/printable.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace schedlab {

namespace {

// The length of the valid UTF-8 sequence at text[at] (RFC 3629: no overlong forms, no
// surrogates, nothing above U+10FFFF), or 0 when the bytes there are not one.
std::size_t utf8_length(std::string_view text, std::size_t at) {
  const auto byte = [&](std::size_t i) { return static_cast<std::uint8_t>(text[at + i]); };
  const auto continuation = [&](std::size_t i, std::uint8_t low = 0x80, std::uint8_t high = 0xbf) {
    return at + i < text.size() && byte(i) >= low && byte(i) <= high;
  };
  const std::uint8_t lead = byte(0);
  if (lead < 0x80) return 1;
  if (lead >= 0xc2 && lead <= 0xdf) return continuation(1) ? 2 : 0;
  if (lead >= 0xe0 && lead <= 0xef) {
    const std::uint8_t low = lead == 0xe0 ? 0xa0 : 0x80;
    const std::uint8_t high = lead == 0xed ? 0x9f : 0xbf;
    return continuation(1, low, high) && continuation(2) ? 3 : 0;
  }
  if (lead >= 0xf0 && lead <= 0xf4) {
    const std::uint8_t low = lead == 0xf0 ? 0x90 : 0x80;
    const std::uint8_t high = lead == 0xf4 ? 0x8f : 0xbf;
    return continuation(1, low, high) && continuation(2) && continuation(3) ? 4 : 0;
  }
  return 0;
}

void append_hex(std::string& out, char c) {
  static constexpr char kDigits[] = "0123456789abcdef";
  const auto byte = static_cast<std::uint8_t>(c);
  out += "\\x";
  out += kDigits[byte >> 4];
  out += kDigits[byte & 0xf];
}

}  // namespace

std::string printable_text(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t at = 0; at < text.size();) {
    const char c = text[at];
    const std::size_t length = utf8_length(text, at);
    if (length == 1) {
      if (c == '\n') {
        out += "\\n";
      } else if (c == '\r') {
        out += "\\r";
      } else if (c == '\t') {
        out += "\\t";
      } else if (static_cast<std::uint8_t>(c) < 0x20 || c == 0x7f) {
        append_hex(out, c);
      } else {
        out += c;
      }
      ++at;
    } else if (length == 0) {
      append_hex(out, c);
      ++at;
    } else if (length == 2 && static_cast<std::uint8_t>(c) == 0xc2 &&
               static_cast<std::uint8_t>(text[at + 1]) <= 0x9f) {
      append_hex(out, c);  // a C1 control character, U+0080..U+009F
      append_hex(out, text[at + 1]);
      at += 2;
    } else {
      out.append(text, at, length);
      at += length;
    }
  }
  return out;
}

std::string markup_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t stop = std::min(text.find_first_of("\t\n\r", start), text.size());
    for (const char c : printable_text(text.substr(start, stop - start))) {
      switch (c) {
        case '&': out += "&amp;"; break;
        case '<': out += "&lt;"; break;
        case '>': out += "&gt;"; break;
        case '"': out += "&quot;"; break;
        case '\'': out += "&#39;"; break;
        default: out += c;
      }
    }
    if (stop < text.size()) out += text[stop];
    start = stop + 1;
  }
  return out;
}

}  // namespace schedlab
