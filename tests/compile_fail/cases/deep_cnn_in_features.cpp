// MUST NOT COMPILE: seed 001's DeepCNN states InFeatures<2048> on its Linear, but 8192 features
// arrive there.
//
// Input (3, 64, 64). Each Conv2d<.., Kernel<3>, Padding<1>> keeps the spatial size
// ((64 + 2*1 - 3)/1 + 1 = 64); each MaxPool2d<2> halves it: 64 -> 32 -> 16 -> 8. The last conv
// has 128 channels, so Flatten gives 128 * 8 * 8 = 8192 features.
// Flattened indices: Conv 0, ReLU 1, Pool 2, Conv 3, ReLU 4, Pool 5, Conv 6, ReLU 7, Pool 8,
// Flatten 9, Linear 10.
// Expected: linear_in_features_mismatch at layer 10 (Linear), written 2048, arriving 8192.
#include <staticnet/staticnet.hpp>

namespace sn = staticnet;

using DeepCNN =
    sn::Sequential<sn::Conv2d<32, sn::Kernel<3>, sn::Padding<1>>, sn::ReLU, sn::MaxPool2d<2>,
                   sn::Conv2d<64, sn::Kernel<3>, sn::Padding<1>>, sn::ReLU, sn::MaxPool2d<2>,
                   sn::Conv2d<128, sn::Kernel<3>, sn::Padding<1>>, sn::ReLU, sn::MaxPool2d<2>,
                   sn::Flatten, sn::Linear<10, sn::InFeatures<2048>>>;
using Setup = sn::Training<sn::Input<sn::f32, 3, 64, 64>, sn::Batch<32>>;

constexpr auto& p = sn::plan<DeepCNN, Setup>();

int main() {
  return 0;
}
