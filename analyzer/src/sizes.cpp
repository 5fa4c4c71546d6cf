// parse_size: sizes as people write them on a command line.
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <map>

#include "staticnet/analyzer/analyze.hpp"

namespace staticnet::analyzer {

std::int64_t parse_size(const std::string& text) {
  static const std::map<std::string, double> units = {{"", 1},
                                                      {"B", 1},
                                                      {"KiB", 1024.0},
                                                      {"MiB", 1048576.0},
                                                      {"GiB", 1073741824.0},
                                                      {"TiB", 1099511627776.0},
                                                      {"kB", 1e3},
                                                      {"KB", 1e3},
                                                      {"MB", 1e6},
                                                      {"GB", 1e9},
                                                      {"TB", 1e12}};
  const char* begin = text.c_str();
  char* end = nullptr;
  const double value = std::strtod(begin, &end);
  std::string unit(end);
  while (!unit.empty() && std::isspace(static_cast<unsigned char>(unit.front())))
    unit.erase(0, 1);
  const auto it = units.find(unit);
  if (end == begin || it == units.end() || !(value > 0) || !std::isfinite(value))
    throw UsageError("'" + text +
                     "' is not a size: write e.g. 3GiB, 512MiB, 1.5GB or a byte "
                     "count (binary units KiB MiB GiB TiB, decimal kB MB GB TB)");
  const double bytes = std::floor(value * it->second);
  if (bytes > 9.0e18 || bytes < 1)
    throw UsageError("'" + text + "' is out of range");
  return static_cast<std::int64_t>(bytes);
}

}  // namespace staticnet::analyzer
