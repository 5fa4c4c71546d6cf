#pragma once
// Readable printing of shapes, byte counts and plans, for tools and tests. Kept out of
// staticnet.hpp so that the core headers need nothing beyond the language support library.
#include <cstdint>
#include <cstdio>
#include <ostream>
#include <string>

#include "staticnet/bytes.hpp"
#include "staticnet/plan.hpp"
#include "staticnet/shape.hpp"

namespace staticnet {

// "(128, 16, 32, 32)"
inline std::string to_string(const Shape& s) {
  std::string out = "(";
  for (int i = 0; i < s.rank; ++i) {
    if (i)
      out += ", ";
    out += std::to_string(s[i]);
  }
  return out + ")";
}

// 1843776 -> "1,843,776": counts as the reports, the trainer and emitted comments print them.
inline std::string grouped(std::int64_t n) {
  const std::string digits = std::to_string(n < 0 ? -n : n);
  std::string out = n < 0 ? "-" : "";
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i && (digits.size() - i) % 3 == 0)
      out += ',';
    out += digits[i];
  }
  return out;
}

// 21747200 -> "20.74 MiB": binary units (1 KiB = 1024 B), two decimals; under 1 KiB the count,
// "512 B". TiB from 1 TiB up.
inline std::string human(Bytes b) {
  const double n = static_cast<double>(b.count < 0 ? -b.count : b.count);
  const char* sign = b.count < 0 ? "-" : "";
  if (n < 1024.0)
    return std::string(sign) + std::to_string(b.count < 0 ? -b.count : b.count) + " B";
  const char* units[] = {"KiB", "MiB", "GiB", "TiB"};
  double scaled = n / 1024.0;
  int unit = 0;
  while (unit < 3 && scaled >= 1024.0) {
    scaled /= 1024.0;
    ++unit;
  }
  char text[40];
  std::snprintf(text, sizeof text, "%s%.2f %s", sign, scaled, units[unit]);
  return text;
}

// "21,747,200 B (20.74 MiB)": the exact count first, a human scale second.
inline std::string to_string(Bytes b) {
  if (b.count > -1024 && b.count < 1024)
    return grouped(b.count) + " B";
  return grouped(b.count) + " B (" + human(b) + ")";
}

inline std::ostream& operator<<(std::ostream& os, const Shape& s) {
  return os << to_string(s);
}
inline std::ostream& operator<<(std::ostream& os, Bytes b) {
  return os << to_string(b);
}

// The footprint, one field a line.
inline void print_footprint(std::ostream& os, const Footprint& f) {
  os << "  weights          " << f.weights << "\n";
  if (f.non_trainable.count > 0)  // only models with BatchNorm keep running statistics
    os << "  non_trainable    " << f.non_trainable << "\n";
  os << "  gradients        " << f.gradients << "\n"
     << "  optimizer_state  " << f.optimizer_state << "\n"
     << "  activations      " << f.activations << "\n"
     << "  workspace        " << f.workspace << "\n"
     << "  inputs           " << f.inputs << "\n"
     << "  total            " << f.total() << "\n";
}

// A table of the layers: index, kind, input and output shapes, parameters, bytes saved.
template <std::size_t L>
void print_layers(std::ostream& os, const Plan<L>& p) {
  char line[160];
  // The kind column fits the longest kind name (DepthwiseConv2d, GlobalAvgPool2d: 15).
  std::snprintf(line, sizeof line, "  %3s  %-15s %-20s %-20s %12s %14s\n", "#", "layer", "input",
                "output", "parameters", "saved (B)");
  os << line;
  for (std::size_t i = 0; i < L; ++i) {
    const LayerPlan& l = p.layers[i];
    std::snprintf(line, sizeof line, "  %3zu  %-15s %-20s %-20s %12lld %14lld\n", i,
                  name_of(l.kind), to_string(l.input_shape).c_str(),
                  to_string(l.output_shape).c_str(), static_cast<long long>(l.parameters),
                  static_cast<long long>(l.saved_bytes));
    os << line;
  }
}

}  // namespace staticnet
