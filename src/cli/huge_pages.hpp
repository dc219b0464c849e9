// Transparent huge pages for the heap.
//
// A 1M-job replay spends about half its time in page faults on multi-hundred-MB job tables and
// output buffers; glibc's malloc can back its arenas with transparent huge pages
// (tunable glibc.malloc.hugetlb=1), which halves the wall time (docs/performance.md). Tunables
// are read only at process start, so main() re-executes the binary once with the tunable set.
// Skipped when GLIBC_TUNABLES is already set (the user's choice wins), when
// SCHEDLAB_NO_HUGEPAGES is set, or under valgrind; if the re-exec fails the run continues as is.
#pragma once

namespace schedlab::cli {

void reexec_with_huge_pages(char** argv);

}  // namespace schedlab::cli
