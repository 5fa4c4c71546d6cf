#include "staticnet/runtime/trainer/host_memory.hpp"

#include <fstream>
#include <sstream>
#include <vector>

#include <fmt/format.h>

#include "staticnet/print.hpp"

namespace staticnet::runtime {

std::optional<std::int64_t> anonymous_resident_bytes() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    // "RssAnon:	   12345 kB"
    if (!line.starts_with("RssAnon:"))
      continue;
    std::istringstream fields(line.substr(8));
    std::int64_t kib = 0;
    std::string unit;
    if (fields >> kib >> unit && unit == "kB")
      return kib * 1024;
    return std::nullopt;
  }
  return std::nullopt;
}

namespace {

// "1,048,576 B (1.00 MiB)"
std::string mib_text(std::int64_t n) {
  return to_string(Bytes{n});
}

std::string parts_text(const HostMemory& h, int slot_count) {
  std::vector<std::string> parts;
  if (h.arena > 0)
    parts.push_back("the arena " + mib_text(h.arena));
  parts.push_back(fmt::format("batch slots {} ({} slot{})", mib_text(h.batch_slots), slot_count,
                              slot_count == 1 ? "" : "s"));
  if (h.pinned_staging > 0)
    parts.push_back("pinned staging " + mib_text(h.pinned_staging));
  parts.push_back("the checkpoint's copy of the state " + mib_text(h.checkpoint_state));
  std::string text;
  for (const std::string& p : parts)
    text += (text.empty() ? "" : " + ") + p;
  return text;
}

}  // namespace

std::string describe_host_plan(const HostMemory& host, int slot_count) {
  std::string text =
      fmt::format("planned {} = {}", mib_text(host.planned()), parts_text(host, slot_count));
  if (host.run_own() > 0)
    text += fmt::format(
        "\n                   + the run's own {} (the data set in memory {}, the loader's epoch "
        "orders and scratch {})",
        mib_text(host.run_own()), mib_text(host.data_set), mib_text(host.loader_extra));
  return text;
}

std::string describe_host_measurement(const HostMemory& host, std::int64_t grown,
                                      std::int64_t epoch) {
  const std::int64_t rest = grown - host.planned() - host.run_own();
  return fmt::format(
      "host memory at the end of epoch {}: {} B more resident (RssAnon) than before set-up = "
      "planned {} B + the run's own {} B + {} B neither (the libraries' own)\n",
      epoch, grouped(grown), grouped(host.planned()), grouped(host.run_own()), grouped(rest));
}

}  // namespace staticnet::runtime
