#include "schedlab/error_kind.hpp"

#include <array>
#include <new>
#include <stdexcept>
#include <utility>

#include "schedlab/error.hpp"

namespace schedlab {

namespace {

struct KindRow {
  ErrorKind kind;
  std::string_view name;
  int exit_code;
  std::string_view text_prefix;  // of failure_text()
};

constexpr std::array<KindRow, 7> kKinds = {{
    {ErrorKind::kInput, "input", kExitInput, "input error: "},
    {ErrorKind::kStuck, "stuck", kExitStuck, "stuck: "},
    {ErrorKind::kPolicy, "policy", kExitInternal, "internal error: "},
    {ErrorKind::kInvariant, "invariant", kExitInternal, "internal error: "},
    {ErrorKind::kOutOfMemory, "out-of-memory", kExitInternal, "internal error: "},
    {ErrorKind::kInternal, "internal", kExitInternal, "internal error: "},
    {ErrorKind::kOutput, "output", kExitOutput, "output error: "},
}};

const KindRow& row_of(ErrorKind kind) {
  for (const KindRow& row : kKinds)
    if (row.kind == kind) return row;
  SCHEDLAB_ASSERT(false, "every error kind has a row");
  return kKinds.back();
}

}  // namespace

ClassifiedError classify_exception(const std::exception_ptr& failure) {
  try {
    std::rethrow_exception(failure);
  } catch (const InputError& e) {
    return {ErrorKind::kInput, e.what()};
  } catch (const StuckError& e) {
    return {ErrorKind::kStuck, e.what()};
  } catch (const OutputError& e) {
    return {ErrorKind::kOutput, e.what()};
  } catch (const PolicyError& e) {
    return {ErrorKind::kPolicy, e.what()};
  } catch (const InvariantError& e) {
    return {ErrorKind::kInvariant, e.what()};
  } catch (const std::bad_alloc&) {
    return {ErrorKind::kOutOfMemory, "out of memory"};
  } catch (const std::exception& e) {
    return {ErrorKind::kInternal, e.what()};
  } catch (...) {
    return {ErrorKind::kInternal, "unknown exception"};
  }
}

int exit_code_of(ErrorKind kind) {
  return row_of(kind).exit_code;
}

std::string_view error_kind_name(ErrorKind kind) {
  return row_of(kind).name;
}

std::optional<ErrorKind> error_kind_named(std::string_view name) {
  for (const KindRow& row : kKinds)
    if (row.name == name) return row.kind;
  return std::nullopt;
}

std::string failure_text(const ClassifiedError& error) {
  return std::string(row_of(error.kind).text_prefix) + error.what;
}

int exit_code_of_failure_text(std::string_view text) {
  for (const KindRow& row : kKinds)
    if (text.starts_with(row.text_prefix)) return row.exit_code;
  return kExitInternal;
}

void throw_error(ErrorKind kind, const std::string& what) {
  switch (kind) {
    case ErrorKind::kInput: throw ConfigError(what);
    case ErrorKind::kStuck: throw StuckError(what);
    case ErrorKind::kOutput: throw OutputError(what);
    case ErrorKind::kPolicy: throw PolicyError(what);
    case ErrorKind::kInvariant: throw InvariantError(what);
    case ErrorKind::kOutOfMemory:
    case ErrorKind::kInternal: throw std::runtime_error(what);
  }
  throw std::runtime_error(what);
}

}  // namespace schedlab
