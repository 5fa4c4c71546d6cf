// POSITIVE CONTROL: a correct model, compiled with exactly the command the compile-fail tests
// use. If this stops compiling (wrong include path, missing -std=c++20, a broken header), every
// compile-fail test would "pass" for the wrong reason; this one fails instead.
//
// Seed 001's DeepCNN with the right InFeatures: 64x64 pooled three times by 2 leaves 8x8, and
// 128 channels * 8 * 8 = 8192 features reach the Linear.
#include <staticnet/staticnet.hpp>

namespace sn = staticnet;

using DeepCNN = sn::Sequential<                      //
    sn::Conv2d<32, sn::Kernel<3>, sn::Padding<1>>,   // 0: (3,64,64)  -> (32,64,64)
    sn::ReLU,                                        // 1
    sn::MaxPool2d<2>,                                // 2: -> (32,32,32)
    sn::Conv2d<64, sn::Kernel<3>, sn::Padding<1>>,   // 3: -> (64,32,32)
    sn::ReLU,                                        // 4
    sn::MaxPool2d<2>,                                // 5: -> (64,16,16)
    sn::Conv2d<128, sn::Kernel<3>, sn::Padding<1>>,  // 6: -> (128,16,16)
    sn::ReLU,                                        // 7
    sn::MaxPool2d<2>,                                // 8: -> (128,8,8)
    sn::Flatten,                                     // 9: -> 8192
    sn::Linear<10, sn::InFeatures<8192>>>;           // 10
using Setup = sn::Training<sn::Input<sn::f32, 3, 64, 64>, sn::Batch<32>>;

constexpr auto& p = sn::plan<DeepCNN, Setup>();
static_assert(p.output_shape == sn::Shape{32, 10});
static_assert(p.layers[9].output_shape == sn::Shape{32, 8192});
// Parameters: 32*3*9+32 = 896, 64*32*9+64 = 18496, 128*64*9+128 = 73856, 10*8192+10 = 81930.
static_assert(p.parameter_count == 896 + 18496 + 73856 + 81930);
static_assert(sn::assert_fits<DeepCNN, Setup, sn::device::t4>());

int main() {
  return p.error.ok() ? 0 : 1;
}
