// A sample model used from the installed package: MLPerf Tiny's ResNet-8, whose counts are the
// reference's (mlcommons/tiny, image classification v1.1: 78,186 trainable, 480 non-trainable).
#include <iostream>

#include "samples/mlperf_tiny/resnet8.hpp"

namespace sn = staticnet;

inline constexpr auto& resnet8 = sn::plan<sn::samples::ResNet8, sn::samples::ResNet8Training>();
static_assert(resnet8.parameter_count == 78186 && resnet8.non_trainable_count == 480);

int main() {
  std::cout << "resnet8 " << resnet8.footprint.total().count << " B\n";
  return 0;
}
