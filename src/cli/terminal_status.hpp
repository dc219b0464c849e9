// One status line on stderr, redrawn in place: shown only when stderr is a terminal and the
// command was not given -q, so logs and pipes never see it.
#pragma once

#include <mutex>
#include <string>

namespace schedlab::cli {

class TerminalStatus {
 public:
  explicit TerminalStatus(bool quiet);
  ~TerminalStatus();
  TerminalStatus(const TerminalStatus&) = delete;
  TerminalStatus& operator=(const TerminalStatus&) = delete;

  bool enabled() const { return enabled_; }
  // Replaces the line shown (cut to the terminal's width). Safe to call from several threads.
  void show(const std::string& line);
  // Removes the line, leaving the cursor where it began.
  void clear();

 private:
  bool enabled_;
  bool shown_ = false;
  std::mutex mutex_;
};

}  // namespace schedlab::cli
