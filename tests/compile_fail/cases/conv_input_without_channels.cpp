// MUST NOT COMPILE: keyword spotting's 49 × 10 MFCCs given as Input<f32, 49, 10>, without the
// channel axis a one-channel image still has (Keras' (49, 10, 1), PyTorch's (1, 49, 10)).
//
// Input (49, 10), Batch 100: layer 0 Conv2d gets (100, 49, 10), three axes where it takes four.
// Expected: needs_spatial_input at layer 0 (Conv2d), input shape (100, 49, 10).
#include <staticnet/staticnet.hpp>

namespace sn = staticnet;

using Model = sn::Sequential<sn::Conv2d<64, sn::Kernel<10, 4>, sn::Stride<2>, sn::PaddingSame>,
                             sn::ReLU, sn::GlobalAvgPool2d, sn::Linear<12>>;
using Setup = sn::Training<sn::Input<sn::f32, 49, 10>, sn::Batch<100>>;

constexpr auto& p = sn::plan<Model, Setup>();

int main() {
  return 0;
}
