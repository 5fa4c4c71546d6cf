// nvcc must accept the staticnet headers: a CUDA translation unit (a trainer's kernels, say)
// includes them and plans a model at compile time. Compiled with `nvcc -std=c++20 -c`; no GPU is
// needed. Every number below is derived by hand.
//
// Model on Input (1, 28, 28), batch 64, CrossEntropy, SGD:
//   0 Conv2d<8, Kernel<3>, Padding<1>>  (1,28,28) -> (8,28,28)   params 8*1*9 + 8 = 80
//   1 ReLU   2 MaxPool2d<2> -> (8,14,14)   3 Flatten -> 1568
//   4 Linear<10>                                               params 10*1568 + 10 = 15690
#include <staticnet/staticnet.hpp>

namespace sn = staticnet;

using Model = sn::Sequential<sn::Conv2d<8, sn::Kernel<3>, sn::Padding<1>>, sn::ReLU,
                             sn::MaxPool2d<2>, sn::Flatten, sn::Linear<10>>;
using Setup = sn::Training<sn::Input<sn::f32, 1, 28, 28>, sn::Batch<64>>;

constexpr auto& p = sn::plan<Model, Setup>();
static_assert(p.error.ok());
static_assert(p.output_shape == sn::Shape{64, 10});
static_assert(p.layers[3].output_shape == sn::Shape{64, 1568});
static_assert(p.parameter_count == 80 + 15690);
// 4 * 15770 = 63080 B -> 247 * 256 = 63232.
static_assert(p.footprint.weights.count == 63232);
static_assert(p.footprint.gradients.count == 63232);
static_assert(p.footprint.optimizer_state.count == 0);
// Input 64*1*28*28*4 = 200704 (= 784 * 256), labels 64*4 = 256.
static_assert(p.footprint.inputs.count == 200704 + 256);
// im2col of one sample: Cin*KH*KW*Ho*Wo*4 = 1*9*28*28*4 = 28224 -> 111 * 256 = 28416.
static_assert(p.footprint.workspace.count == 28416);
static_assert(sn::fits<Model, Setup>(sn::device::jetson_nano));
static_assert(sn::assert_fits<Model, Setup, sn::device::jetson_nano>());

// Numbers from the plan reach device code as plain constants (computed on the host side: the
// plan's member functions are __host__ only, as any constexpr function without
// --expt-relaxed-constexpr).
inline constexpr long long logit_count = p.output_shape.elements();
static_assert(logit_count == 640);

__global__ void scale_logits(float* logits, float s) {
  constexpr long long n = logit_count;
  const long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (i < n)
    logits[i] *= s;
}
