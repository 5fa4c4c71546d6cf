#pragma once
// The trainer's host memory, planned beside measured. The plan states what the trainer holds
// (plan.host through ModelInfo::host, and the arena where the backend keeps it in host memory);
// the run adds what depends on its data and options (a data set read into memory, the loader's
// epoch orders and scratch); Linux says what the process holds. What is left over belongs to
// neither: the libraries' own allocations (OpenBLAS's buffers, on CUDA the driver's) and the
// runtime's small ones (strings, thread stacks).
#include <cstdint>
#include <optional>
#include <string>

namespace staticnet::runtime {

// The process's anonymous resident memory (RssAnon in /proc/self/status, bytes): the heap and
// every private mapping, without the pages of mapped files (the program, its libraries, a data
// file read through mmap). nullopt where the kernel does not report it.
std::optional<std::int64_t> anonymous_resident_bytes();

// What the trainer holds in host memory, part by part (bytes).
struct HostMemory {
  // Planned: the arena where the backend keeps it in host memory (the CPU trainer's), the loader's
  // batch slots, the CUDA trainer's pinned staging, the checkpoint's copy of the state.
  std::int64_t arena = 0, batch_slots = 0, pinned_staging = 0, checkpoint_state = 0;
  // The run's own, known only once the data are open: a data set held in memory, the loader's
  // shuffled epoch orders and its workers' scratch samples.
  std::int64_t data_set = 0, loader_extra = 0;

  std::int64_t planned() const { return arena + batch_slots + pinned_staging + checkpoint_state; }
  std::int64_t run_own() const { return data_set + loader_extra; }
};

// The start-up report's host lines: "planned 25,390,968 B (24.21 MiB) = the arena … + batch
// slots … (2 slots) + the checkpoint's copy of the state …", then, where the run holds bytes of
// its own, a line "+ the run's own … (the data set in memory …, the loader's epoch orders and
// scratch …)".
std::string describe_host_plan(const HostMemory& host, int slot_count);

// The end of a run's measurement: the anonymous memory grown since before the backend set up,
// against the parts (one line, exact bytes, for tests to read).
std::string describe_host_measurement(const HostMemory& host, std::int64_t grown,
                                      std::int64_t epoch);

}  // namespace staticnet::runtime
