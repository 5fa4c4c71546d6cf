// MUST NOT COMPILE: the model and setup of budget_does_not_fit.cpp, with sn::Prefetch, on a
// 25 MiB device whose runtime takes 1 MiB. Without Prefetch the step needs 23,627,264 B, so
// 24,675,840 B with the overhead: it fits 26,214,400 B (the static_assert below says so).
// Prefetch adds the next batch, laid out like the first: the input 128·3·32·32·4 = 1,572,864 B
// (a multiple of 256) and the labels 128·4 = 512 B, 1,573,376 B, itself a multiple of 256.
//   inputs   1,573,376 · 2 = 3,146,752
//   total    23,627,264 + 1,573,376 = 25,200,640; + overhead 1,048,576 = 26,249,216
//   over     26,249,216 − 26,214,400 = 34,816
#include <staticnet/staticnet.hpp>

namespace sn = staticnet;

using SimpleCNN = sn::Sequential<sn::Conv2d<16, sn::Kernel<3>, sn::Padding<1>>, sn::ReLU,
                                 sn::MaxPool2d<2>, sn::Conv2d<32, sn::Kernel<3>, sn::Padding<1>>,
                                 sn::ReLU, sn::MaxPool2d<2>, sn::Flatten, sn::Linear<10>>;
using Setup = sn::Training<sn::Input<sn::f32, 3, 32, 32>, sn::Batch<128>,
                           sn::Loss<sn::CrossEntropy>, sn::Optimizer<sn::Adam>>;
using Prefetching = sn::Training<sn::Input<sn::f32, 3, 32, 32>, sn::Batch<128>,
                                 sn::Loss<sn::CrossEntropy>, sn::Optimizer<sn::Adam>, sn::Prefetch>;
constexpr sn::Device device{sn::MiB(25), sn::MiB(1)};

static_assert(sn::fits<SimpleCNN, Setup>(device), "without Prefetch it fits");
static_assert(sn::assert_fits<SimpleCNN, Prefetching, device>());

int main() {
  return 0;
}
