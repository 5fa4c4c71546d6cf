#pragma once
// Private to the trainer and inference programs: how what a run throws becomes the program's
// message and exit status, the same in both.
#include <cstdio>
#include <exception>
#include <string>

#include "staticnet/runtime/error.hpp"

namespace staticnet::runtime::cli {

// Runs `body` (which returns the exit status of a run that ends), and reports what it throws as
// "<program>: error: <message>" on stderr, after whatever the run printed: exit status 2 for an
// option that cannot apply (UsageError, as for the options the parser refuses), 1 for the rest
// (bad data, a bad checkpoint, a diverging loss).
template <class Body>
int run_reporting_errors(const std::string& program, Body body) {
  auto report = [&](const std::exception& e, int status) {
    std::fflush(stdout);
    std::fprintf(stderr, "%s: error: %s\n", program.c_str(), e.what());
    return status;
  };
  try {
    return body();
  } catch (const UsageError& e) {
    return report(e, 2);
  } catch (const std::exception& e) {
    return report(e, 1);
  }
}

}  // namespace staticnet::runtime::cli
