// ResNet-8 served one image at a time: every BatchNorm reads a convolution's output that nothing
// else reads, so all seven fold into it (check_analyzer.py's hand numbers).
#include "samples/mlperf_tiny/resnet8.hpp"

namespace resnet8_serving {
using Serving =
    staticnet::Inference<staticnet::Input<staticnet::f32, 3, 32, 32>, staticnet::Batch<1>>;
STATICNET_MODEL(resnet8_serving, staticnet::samples::ResNet8, Serving);
}  // namespace resnet8_serving
