// MUST NOT COMPILE: ResNet-8's downsampling block with its 1x1 shortcut convolution written
// with stride 1: the body halves the image, the shortcut does not.
//
// Input (16, 32, 32), Batch 8. 0 ReLU (8, 16, 32, 32). The block starts at layer 1: its body is
// 1 Conv2d<32, Kernel<3>, Stride<2>, PaddingSame> (8, 32, 16, 16) ('same', stride 2:
// ceil(32/2) = 16), 2 BatchNorm2d, 3 ReLU, 4 Conv2d<32, Kernel<3>, PaddingSame> (8, 32, 16, 16),
// 5 BatchNorm2d; its shortcut 6 Conv2d<32, Kernel<1>> reads layer 0's (8, 16, 32, 32) and makes
// (8, 32, 32, 32). 7 Add.
// Expected: residual_shapes_differ at layer 7 (Add), block from layer 1, shortcut ending at
// layer 6, body (8, 32, 16, 16), shortcut (8, 32, 32, 32).
#include <staticnet/staticnet.hpp>

namespace sn = staticnet;

using Body =
    sn::Sequential<sn::Conv2d<32, sn::Kernel<3>, sn::Stride<2>, sn::PaddingSame>, sn::BatchNorm2d<>,
                   sn::ReLU, sn::Conv2d<32, sn::Kernel<3>, sn::PaddingSame>, sn::BatchNorm2d<>>;
using Shortcut = sn::Conv2d<32, sn::Kernel<1>>;
using Model = sn::Sequential<sn::ReLU, sn::Residual<Body, Shortcut>, sn::ReLU, sn::GlobalAvgPool2d,
                             sn::Linear<10>>;
using Setup = sn::Training<sn::Input<sn::f32, 16, 32, 32>, sn::Batch<8>>;

constexpr auto& p = sn::plan<Model, Setup>();

int main() {
  return 0;
}
