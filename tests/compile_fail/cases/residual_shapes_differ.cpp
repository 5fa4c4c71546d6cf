// MUST NOT COMPILE: a residual block whose body downsamples while its shortcut (Identity) does
// not: ResNet-8's second stack with the 1x1 stride-2 shortcut convolution forgotten.
//
// Input (16, 32, 32), Batch 8. Layers: 0 Conv2d<32, Kernel<3>, Stride<2>, PaddingSame>: 'same'
// with stride 2 gives ceil(32/2) = 16, so (8, 32, 16, 16). 1 BatchNorm2d, 2 ReLU, 3 Conv2d<32,
// Kernel<3>, PaddingSame> (8, 32, 16, 16), 4 BatchNorm2d. The shortcut is the block's input,
// (8, 16, 32, 32). 5 Add: the block that starts at layer 0.
// Expected: residual_shapes_differ at layer 5 (Add), block from layer 0, body (8, 32, 16, 16),
// shortcut (8, 16, 32, 32).
#include <staticnet/staticnet.hpp>

namespace sn = staticnet;

using Body =
    sn::Sequential<sn::Conv2d<32, sn::Kernel<3>, sn::Stride<2>, sn::PaddingSame>, sn::BatchNorm2d<>,
                   sn::ReLU, sn::Conv2d<32, sn::Kernel<3>, sn::PaddingSame>, sn::BatchNorm2d<>>;
using Model = sn::Sequential<sn::Residual<Body>, sn::ReLU, sn::GlobalAvgPool2d, sn::Linear<10>>;
using Setup = sn::Training<sn::Input<sn::f32, 16, 32, 32>, sn::Batch<8>>;

constexpr auto& p = sn::plan<Model, Setup>();

int main() {
  return 0;
}
