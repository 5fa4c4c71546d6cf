// MUST NOT COMPILE: seed 001's SimpleCNN of budget_seed_simple_cnn.cpp under mixed precision
// (bf16), on a 12 MiB device whose runtime takes 1 MiB. Derived by hand from the rules of
// include/staticnet/layers.hpp (which dtype each tensor has) and plan.hpp (sizes occupy
// multiples of 256), as tests/core/test_precision.cpp spells out:
//   weights   f32 master 165,888 + bf16 working copy 41,418·2 = 82,836 → 82,944: 248,832
//   gradients 165,888 (f32), optimizer_state 331,776 (Adam, f32), inputs 1,573,376,
//   workspace 110,592 (the CPU's im2col stays f32)
//   activations 9,962,496: the bf16 tensors are half of FP32's, the u8 window index is not
//   total 12,392,960; + overhead 1,048,576 = required 13,441,536 > budget 12,582,912.
#include <staticnet/staticnet.hpp>

namespace sn = staticnet;

using SimpleCNN = sn::Sequential<sn::Conv2d<16, sn::Kernel<3>, sn::Padding<1>>, sn::ReLU,
                                 sn::MaxPool2d<2>, sn::Flatten, sn::Linear<10>>;
using Setup = sn::Training<sn::Input<sn::f32, 3, 32, 32>, sn::Batch<128>, sn::Optimizer<sn::Adam>,
                           sn::Loss<sn::CrossEntropy>,
                           sn::Precision<sn::detail::Mixed<sn::bf16>>>;

static_assert(sn::assert_fits<SimpleCNN, Setup, sn::Device{sn::MiB(12), sn::MiB(1)}>());

int main() {
  return 0;
}
