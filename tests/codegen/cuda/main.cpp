// The GPU tests' main: on a machine without a usable CUDA device every test reports itself
// skipped (ctest matches STATICNET_SKIP) instead of failing; listing the tests (the build's test
// discovery) needs no device.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdio>
#include <cstring>
#include <string>

#include <staticnet/cuda/check.hpp>

int main(int argc, char** argv) {
  bool listing = false;
  for (int i = 1; i < argc; ++i)
    listing =
        listing || std::strncmp(argv[i], "--list", 6) == 0 || std::strcmp(argv[i], "-ltc") == 0;
  if (!listing) {
    if (const std::string why = staticnet::cuda::device_unavailable_reason(); !why.empty()) {
      std::printf("STATICNET_SKIP: no CUDA device here (CUDA says %s)\n", why.c_str());
      return 0;
    }
  }
  doctest::Context context(argc, argv);
  return context.run();
}
