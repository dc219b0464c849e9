// Error kinds: every exception type maps to one kind, each kind to its exit code and failure text,
// and a failure rebuilt from its kind keeps both.
#include <new>
#include <stdexcept>

#include <catch2/catch.hpp>

#include "schedlab/error.hpp"
#include "schedlab/error_kind.hpp"

using namespace schedlab;

namespace {

template <typename E>
ClassifiedError classified(const E& error) {
  return classify_exception(std::make_exception_ptr(error));
}

}  // namespace

TEST_CASE("each exception type has its kind and exit code", "[errors]") {
  CHECK(classified(TraceError("t.csv", 3, "bad")).kind == ErrorKind::kInput);
  CHECK(classified(ConfigError("bad")).kind == ErrorKind::kInput);
  CHECK(classified(StuckError("s")).kind == ErrorKind::kStuck);
  CHECK(classified(OutputError("o")).kind == ErrorKind::kOutput);
  CHECK(classified(PolicyError("p")).kind == ErrorKind::kPolicy);
  CHECK(classified(InvariantError("i")).kind == ErrorKind::kInvariant);
  CHECK(classified(std::bad_alloc()).kind == ErrorKind::kOutOfMemory);
  CHECK(classified(std::runtime_error("r")).kind == ErrorKind::kInternal);
  CHECK(classify_exception(std::make_exception_ptr(42)).what == "unknown exception");
  CHECK(classified(ConfigError("bad value")).what == "bad value");

  CHECK(exit_code_of(ErrorKind::kInput) == 2);
  CHECK(exit_code_of(ErrorKind::kStuck) == 3);
  CHECK(exit_code_of(ErrorKind::kPolicy) == 4);
  CHECK(exit_code_of(ErrorKind::kInvariant) == 4);
  CHECK(exit_code_of(ErrorKind::kOutOfMemory) == 4);
  CHECK(exit_code_of(ErrorKind::kInternal) == 4);
  CHECK(exit_code_of(ErrorKind::kOutput) == 5);
}

TEST_CASE("failure texts, kind names and rebuilt failures round-trip", "[errors]") {
  for (const ErrorKind kind :
       {ErrorKind::kInput, ErrorKind::kStuck, ErrorKind::kPolicy, ErrorKind::kInvariant,
        ErrorKind::kOutOfMemory, ErrorKind::kInternal, ErrorKind::kOutput}) {
    INFO(error_kind_name(kind));
    CHECK(error_kind_named(error_kind_name(kind)) == kind);
    const std::string text = failure_text({kind, "cell 3 failed"});
    CHECK(text.ends_with(": cell 3 failed"));
    CHECK(exit_code_of_failure_text(text) == exit_code_of(kind));
    try {
      throw_error(kind, "again");
    } catch (...) {
      const ClassifiedError rebuilt = classify_exception(std::current_exception());
      CHECK(exit_code_of(rebuilt.kind) == exit_code_of(kind));
      CHECK(rebuilt.what == "again");
    }
  }
  CHECK(failure_text({ErrorKind::kStuck, "x"}) == "stuck: x");
  CHECK(failure_text({ErrorKind::kInput, "x"}) == "input error: x");
  CHECK(failure_text({ErrorKind::kPolicy, "x"}) == "internal error: x");
  CHECK(exit_code_of_failure_text("something else") == 4);
  CHECK_FALSE(error_kind_named("nonsense"));
}
