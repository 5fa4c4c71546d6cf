#pragma once
// Private to the runtime: numbers as the schedules (--lr-schedule) and the checkpoints' metadata
// write and read them, so that a resumed run gets its settings back to the bit.
#include <fmt/format.h>

#include <charconv>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>

namespace staticnet::runtime {

// The shortest text that reads back as the same double: "0.001", "2e-05", "1e-08" (as Python's
// repr writes them, but for whole numbers: "0", not "0.0").
inline std::string round_trip_text(double x) {
  return fmt::format("{}", x);
}

// The whole of `text` as a number, or nothing (no sign but '-', no spaces, nothing after it, and
// inside the type's range).
template <typename Number>
std::optional<Number> whole_number(std::string_view text) {
  Number value{};
  const char* end = text.data() + text.size();
  const auto [stop, error] = std::from_chars(text.data(), end, value);
  if (text.empty() || error != std::errc{} || stop != end)
    return std::nullopt;
  return value;
}

}  // namespace staticnet::runtime
