#include "schedlab/output.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <csignal>
#include <cstring>
#include <filesystem>

#include <fmt/format.h>

#include "schedlab/error.hpp"

namespace schedlab {

namespace fs = std::filesystem;

namespace {

[[noreturn]] void fail_output(const fs::path& path, const std::string& what, int error) {
  throw OutputError(fmt::format("{}: cannot {}: {}", path.string(), what, std::strerror(error)));
}

// Writes all of `content` to `fd`; 0 or errno.
int write_all(int fd, std::string_view content) {
  std::size_t written = 0;
  while (written < content.size()) {
    const ssize_t n = ::write(fd, content.data() + written, content.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return n < 0 ? errno : EIO;
    written += static_cast<std::size_t>(n);
  }
  return 0;
}

// Writes `content` to `path` (created or truncated), all of it, and closes it; errno on failure.
int write_whole_file(const fs::path& path, std::string_view content) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0) return errno;
  if (const int error = write_all(fd, content); error != 0) {
    ::close(fd);
    return error;
  }
  return ::close(fd) == 0 ? 0 : errno;
}

// What an output path names once its symlinks are followed.
struct OutputTarget {
  enum class Kind { kNothing, kRegular, kStream };
  fs::path path;
  Kind kind = Kind::kNothing;
};

constexpr int kMaxSymlinkHops = 40;

OutputTarget output_target(const std::string& given) {
  fs::path path(given);
  for (int hops = 0;; ++hops) {
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0) {
      if (errno == ENOENT) return {path, OutputTarget::Kind::kNothing};
      fail_output(path, "examine output path", errno);
    }
    if (S_ISLNK(st.st_mode)) {
      std::error_code ec;
      const fs::path target = fs::read_symlink(path, ec);
      if (ec) fail_output(path, "read the symbolic link", ec.value());
      if (hops >= kMaxSymlinkHops)
        throw ConfigError(fmt::format("{}: too many levels of symbolic links", given));
      path = target.is_absolute() ? target : path.parent_path() / target;
      continue;
    }
    if (S_ISREG(st.st_mode)) return {path, OutputTarget::Kind::kRegular};
    if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)) return {path, OutputTarget::Kind::kStream};
    const char* kind = S_ISDIR(st.st_mode)    ? "a directory"
                       : S_ISBLK(st.st_mode)  ? "a block device"
                       : S_ISSOCK(st.st_mode) ? "a socket"
                                              : "a special file";
    throw ConfigError(fmt::format(
        "{}: is {}; an output file must be a regular file, a character device or a FIFO",
        path.string(), kind));
  }
}

// Writes into an existing character device or FIFO without replacing it.
void write_through(const fs::path& path, std::string_view content) {
  int fd = -1;
  do {
    fd = ::open(path.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC);
  } while (fd < 0 && errno == EINTR);
  if (fd < 0) fail_output(path, "open output file", errno);
  if (const int error = write_all(fd, content); error != 0) {
    ::close(fd);
    fail_output(path, "write output file", error);
  }
  if (::close(fd) != 0) fail_output(path, "write output file", errno);
}

// The temporaries of a write: removed unless committed (every failure path, exceptions too).
class Temporaries {
 public:
  Temporaries() = default;
  Temporaries(const Temporaries&) = delete;
  Temporaries& operator=(const Temporaries&) = delete;
  ~Temporaries() {
    std::error_code ignored;
    for (const auto& path : paths_) fs::remove(path, ignored);
  }
  void add(fs::path path) { paths_.push_back(std::move(path)); }
  void commit() { paths_.clear(); }

 private:
  std::vector<fs::path> paths_;
};

// `dir` as an existing directory: created when missing (OutputError when that fails);
// ConfigError when it exists as something else.
void create_directory(const std::string& dir) {
  if (dir.empty()) throw ConfigError("output directory: empty path");
  std::error_code ec;
  if (fs::is_directory(dir, ec)) return;
  if (fs::exists(fs::symlink_status(dir, ec)))
    throw ConfigError(
        fmt::format("{}: exists and is not a directory; give a directory for the outputs", dir));
  fs::create_directories(dir, ec);
  if (ec)
    throw OutputError(
        fmt::format("{}: cannot create output directory: {}", dir, std::strerror(ec.value())));
}

fs::path temporary_beside(const fs::path& final_path) {
  return final_path.parent_path() /
         fmt::format(".{}.tmp.{}", final_path.filename().string(), ::getpid());
}

// ".NAME.tmp.PID", as temporary_beside names them.
bool is_temporary_name(const std::string& name) {
  const auto at = name.rfind(".tmp.");
  if (!name.starts_with(".") || at == std::string::npos || at == 0) return false;
  const std::string_view pid = std::string_view(name).substr(at + 5);
  return !pid.empty() && pid.find_first_not_of("0123456789") == std::string_view::npos;
}

// Removes the temporaries ".NAME.tmp.PID" of `final_path` whose process no longer exists
// (left by a writer that was killed). Another live process's temporary is kept: a single file
// takes no directory lock.
void remove_dead_writers_temporaries(const fs::path& final_path) {
  const std::string prefix = fmt::format(".{}.tmp.", final_path.filename().string());
  const fs::path dir = final_path.has_parent_path() ? final_path.parent_path() : fs::path(".");
  std::error_code ec;
  std::vector<fs::path> stale;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (!name.starts_with(prefix) || !is_temporary_name(name)) continue;
    const std::string_view digits = std::string_view(name).substr(prefix.size());
    if (digits.size() > 9) continue;  // no pid of this system
    const auto pid = static_cast<pid_t>(std::stol(std::string(digits)));
    std::error_code ignored;
    if (pid != ::getpid() && ::kill(pid, 0) != 0 && errno == ESRCH &&
        fs::is_regular_file(it->symlink_status(ignored)))
      stale.push_back(it->path());
  }
  for (const auto& path : stale) fs::remove(path, ec);
}

// Replaces the regular file (or nothing) at `final_path` atomically.
void replace_file(const fs::path& final_path, std::string_view content) {
  const fs::path tmp = temporary_beside(final_path);
  Temporaries temporaries;
  temporaries.add(tmp);
  if (const int error = write_whole_file(tmp, content); error != 0)
    fail_output(final_path, "write output file", error);
  if (::rename(tmp.c_str(), final_path.c_str()) != 0)
    fail_output(final_path, "rename output file into place", errno);
  temporaries.commit();
}

}  // namespace

void write_file_atomically(const std::string& path, std::string_view content) {
  const OutputTarget target = output_target(path);
  if (target.kind == OutputTarget::Kind::kStream)
    write_through(target.path, content);
  else {
    remove_dead_writers_temporaries(target.path);
    replace_file(target.path, content);
  }
}

void write_files_atomically(const std::string& dir,
                            const std::vector<std::pair<std::string, std::string_view>>& files) {
  create_directory(dir);
  for (const auto& [name, content] : files) {
    const fs::path final_path = fs::path(dir) / name;
    std::error_code ec;
    const fs::file_status status = fs::symlink_status(final_path, ec);
    if (fs::exists(status) && !fs::is_regular_file(status))
      throw ConfigError(fmt::format(
          "{}: exists and is not a regular file; an output set replaces only regular files",
          final_path.string()));
  }
  const fs::path marker = fs::path(dir) / kCompleteMarker;
  if (::unlink(marker.c_str()) != 0 && errno != ENOENT)
    fail_output(marker, "remove the completion marker", errno);
  std::vector<std::pair<fs::path, fs::path>> staged;
  Temporaries temporaries;
  std::string names;
  for (const auto& [name, content] : files) {
    const fs::path final_path = fs::path(dir) / name;
    const fs::path tmp = temporary_beside(final_path);
    staged.emplace_back(tmp, final_path);
    temporaries.add(tmp);
    names += name + "\n";
    if (const int error = write_whole_file(tmp, content); error != 0)
      fail_output(final_path, "write output file", error);
  }
  for (const auto& [tmp, final_path] : staged)
    if (::rename(tmp.c_str(), final_path.c_str()) != 0)
      fail_output(final_path, "rename output file into place", errno);
  temporaries.commit();
  replace_file(marker, names);
}

void remove_stale_temporaries(const std::string& dir) {
  std::error_code ec;
  std::vector<fs::path> stale;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code ignored;
    if (is_temporary_name(it->path().filename().string()) &&
        fs::is_regular_file(it->symlink_status(ignored)))
      stale.push_back(it->path());
  }
  for (const auto& path : stale) fs::remove(path, ec);
}

OutputDirLock::OutputDirLock(const std::string& dir) {
  if (dir.empty()) throw ConfigError("output directory: empty path");
  fs::path missing = fs::path(dir).lexically_normal();
  if (!missing.has_filename()) missing = missing.parent_path();
  std::error_code ec;
  while (!missing.empty() && missing.has_filename() &&
         !fs::exists(fs::symlink_status(missing, ec))) {
    created_dirs_.push_back(missing.string());
    missing = missing.parent_path();
  }
  create_directory(dir);
  lock_path_ = (fs::path(dir) / kOutputLock).string();
  // The holder removes the file on release: a lock taken on a removed file is taken again.
  for (int attempt = 0; fd_ < 0; ++attempt) {
    const int fd = ::open(lock_path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0666);
    if (fd < 0) fail_output(lock_path_, "create the output directory's lock file", errno);
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      const int error = errno;
      std::string holder(256, '\0');
      const ssize_t n = ::pread(fd, holder.data(), holder.size(), 0);
      ::close(fd);
      if (error != EWOULDBLOCK) fail_output(lock_path_, "lock the output directory", error);
      holder.resize(n > 0 ? static_cast<std::size_t>(n) : 0);
      while (!holder.empty() && (holder.back() == '\n' || holder.back() == ' ')) holder.pop_back();
      for (char& c : holder)  // another program's lock file: nothing raw reaches the terminal
        if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f) c = '?';
      const auto space = holder.find(' ');
      const std::string pid = space == std::string::npos ? holder : holder.substr(0, space);
      const std::string host = space == std::string::npos ? "" : holder.substr(space + 1);
      throw ConfigError(fmt::format(
          "{}: output directory in use by schedlab pid {} on host {} (lock {}); wait for it to "
          "finish or write elsewhere",
          dir, pid.empty() ? "?" : pid, host.empty() ? "?" : host, lock_path_));
    }
    struct stat held {};
    struct stat named {};
    if (::fstat(fd, &held) == 0 && ::stat(lock_path_.c_str(), &named) == 0 &&
        held.st_dev == named.st_dev && held.st_ino == named.st_ino) {
      fd_ = fd;
    } else {
      ::close(fd);
      if (attempt >= 100) fail_output(lock_path_, "lock the output directory", EAGAIN);
    }
  }
  std::string host(256, '\0');
  if (::gethostname(host.data(), host.size() - 1) != 0) host = "unknown";
  host.resize(std::strlen(host.c_str()));
  const std::string holder = fmt::format("{} {}\n", ::getpid(), host);
  if (::ftruncate(fd_, 0) != 0 || ::pwrite(fd_, holder.data(), holder.size(), 0) < 0) {
    const int error = errno;
    ::unlink(lock_path_.c_str());
    ::close(fd_);
    fail_output(lock_path_, "write the output directory's lock file", error);
  }
  remove_stale_temporaries(dir);
}

OutputDirLock::~OutputDirLock() {
  ::unlink(lock_path_.c_str());
  ::close(fd_);
  for (const auto& dir : created_dirs_) ::rmdir(dir.c_str());  // only while empty
}

void require_complete_output_set(const std::string& dir) {
  std::error_code ec;
  if (!fs::exists(fs::path(dir) / kCompleteMarker, ec))
    throw ConfigError(fmt::format(
        "{}: incomplete output set: no {} marker (the command writing it was interrupted, or "
        "it was not written by schedlab); run it again",
        dir, kCompleteMarker));
}

double round_to(double value, int decimals) {
  const double scale = std::pow(10.0, decimals);
  const double rounded = std::round(value * scale) / scale;
  return rounded == 0.0 ? 0.0 : rounded;  // no "-0"
}

namespace {
constexpr std::int64_t kPow10[] = {1,      10,      100,      1000,      10000,
                                   100000, 1000000, 10000000, 100000000, 1000000000};

void append_scaled(std::string& out, std::int64_t scaled, int decimals) {
  if (scaled < 0) {
    out.push_back('-');
    scaled = -scaled;
  }
  const std::int64_t unit = kPow10[decimals];
  append_int(out, scaled / unit);
  if (decimals == 0) return;
  out.push_back('.');
  char digits[9];
  std::int64_t frac = scaled % unit;
  for (int i = decimals - 1; i >= 0; --i) {
    digits[i] = static_cast<char>('0' + frac % 10);
    frac /= 10;
  }
  out.append(digits, static_cast<std::size_t>(decimals));
}
}  // namespace

void append_int(std::string& out, std::int64_t value) {
  const fmt::format_int text(value);
  out.append(text.data(), text.size());
}

void append_fixed(std::string& out, double value, int decimals) {
  SCHEDLAB_ASSERT(decimals >= 0 && decimals <= 9, "fixed() decimals in 0..9");
  const double scaled = value * static_cast<double>(kPow10[decimals]);
  if (!std::isfinite(scaled) || std::fabs(scaled) >= 9.0e15) {
    out += fmt::format("{:.{}f}", value, decimals);
    return;
  }
  append_scaled(out, static_cast<std::int64_t>(std::llround(scaled)), decimals);
}

void append_seconds(std::string& out, std::int64_t ms) {
  append_scaled(out, ms, 3);
}

void append_csv_field(std::string& out, std::string_view text) {
  if (text.find_first_of(",\"\n\r") == std::string_view::npos) {
    out.append(text);
    return;
  }
  out.push_back('"');
  for (char c : text) {
    if (c == '"') out.push_back('"');
    out.push_back(c);
  }
  out.push_back('"');
}

std::string csv_field(std::string_view text) {
  std::string out;
  append_csv_field(out, text);
  return out;
}

std::string fixed(double value, int decimals) {
  std::string out;
  append_fixed(out, value, decimals);
  return out;
}

}  // namespace schedlab
