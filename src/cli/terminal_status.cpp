#include "terminal_status.hpp"

#include <sys/ioctl.h>
#include <unistd.h>

#include <cstdio>

namespace schedlab::cli {

namespace {

std::size_t terminal_columns() {
  winsize size{};
  if (::ioctl(STDERR_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 1) return size.ws_col;
  return 80;
}

}  // namespace

TerminalStatus::TerminalStatus(bool quiet) : enabled_(!quiet && ::isatty(STDERR_FILENO) == 1) {}

TerminalStatus::~TerminalStatus() {
  clear();
}

void TerminalStatus::show(const std::string& line) {
  if (!enabled_) return;
  const std::lock_guard lock(mutex_);
  // One column short of the width: a line that fills it would wrap, and \r would then redraw
  // only its last row.
  const std::string shown = line.substr(0, terminal_columns() - 1);
  std::fprintf(stderr, "\r\033[K%s", shown.c_str());
  std::fflush(stderr);
  shown_ = true;
}

void TerminalStatus::clear() {
  if (!enabled_) return;
  const std::lock_guard lock(mutex_);
  if (!shown_) return;
  std::fputs("\r\033[K", stderr);
  std::fflush(stderr);
  shown_ = false;
}

}  // namespace schedlab::cli
