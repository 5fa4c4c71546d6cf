// The plan's dtypes under each precision (issue 38, part 2): which tensor is in which dtype, and
// the footprint that follows, to the byte. Every expected number is derived by hand in the
// comment beside it, from the rules in setup.hpp (precision_dtypes), plan.hpp (output_dtype) and
// layers.hpp; a region's bytes are its buffers' sizes, each rounded up to 256.
#include <doctest/doctest.h>

#include <cstdint>

#include <staticnet/staticnet.hpp>

namespace sn = staticnet;

namespace {

using Mixed16 = sn::detail::Mixed<sn::bf16>;
using MixedF16 = sn::detail::Mixed<sn::f16>;
using PureBF16 = sn::detail::Pure<sn::bf16>;

// An MLP whose tensors are large enough that halving them shows past the 256-byte rounding.
// Input 8 features, batch 32: Linear 0 has 8·64 + 64 = 576 parameters, Linear 2 has 64·2 + 2 =
// 130: 706 in all.
using Mlp = sn::Sequential<sn::Linear<64>, sn::ReLU, sn::Linear<2>>;
template <class P>
using MlpTraining =
    sn::Training<sn::Input<sn::f32, 8>, sn::Batch<32>, sn::Optimizer<sn::SGD>, sn::Precision<P>>;

template <class P>
constexpr const auto& mlp_plan() {
  return sn::plan<Mlp, MlpTraining<P>>();
}

template <std::size_t L>
constexpr const sn::Buffer& buffer_of(const sn::Plan<L>& p, int index) {
  return p.buffers[static_cast<std::size_t>(index)];
}

// Region bytes by hand, the same under every precision:
//   inputs: the input, 32·8 f32 = 1,024 B, then the labels, 32 i32 = 128 B → 256: 1,280.
//   workspace: none (no convolution).
// FP32: parameters 706 f32 = 2,824 B → 3,072; gradients the same.
//   activations: Linear 0's output 32·64 f32 = 8,192 B (the ReLU runs over it in place),
//   Linear 2's 32·2 f32 = 256, the loss and the predictions 128 B → 256 each, the loss's gradient
//   256, and the ReLU's input gradient 8,192 (the ReLU's backward then runs over it). Linear 2's
//   backward holds the most at once: Linear 0's output (its saved input), the loss, the
//   predictions, d(logits) and the new d(Linear 0's output): 8,192 + 3·256 + 8,192 = 17,152.
TEST_CASE("precision: FP32 is the plan it always was") {
  constexpr auto& p = mlp_plan<sn::FP32>();
  static_assert(p.footprint.weights.count == 3'072);
  static_assert(p.footprint.gradients.count == 3'072);
  static_assert(p.footprint.optimizer_state.count == 0);
  static_assert(p.footprint.inputs.count == 1'280);
  static_assert(p.footprint.workspace.count == 0);
  static_assert(p.footprint.activations.count == 17'152);
  for (const sn::Buffer& b : p.buffers)
    CHECK(b.role != sn::BufferRole::parameter_copy);
}

// Mixed<bf16>: the master parameters and their gradients stay f32 (3,072 each); the working copy,
// 706 bf16 = 1,412 B → 1,536, joins the weights: 4,608. Both Linears' outputs are bf16 (autocast
// runs them in bf16), the ReLU keeps its input's, and a gradient has its tensor's dtype: Linear
// 0's output and its gradient 32·64 bf16 = 4,096 B each; the logits, d(logits) 32·2 bf16 = 128 →
// 256. The loss and predictions are f32 and i32 as before. The peak, at Linear 2's backward:
// 4,096 + 3·256 + 4,096 = 8,960.
TEST_CASE("precision: Mixed<bf16> keeps f32 masters beside a bf16 working copy") {
  constexpr auto& p = mlp_plan<Mixed16>();
  static_assert(p.footprint.weights.count == 4'608);
  static_assert(p.footprint.gradients.count == 3'072);
  static_assert(p.footprint.optimizer_state.count == 0);
  static_assert(p.footprint.inputs.count == 1'280);
  static_assert(p.footprint.activations.count == 8'960);
  static_assert(p.footprint.total().count == 4'608 + 3'072 + 1'280 + 8'960);

  int copies = 0;
  for (const sn::Buffer& b : p.buffers) {
    switch (b.role) {
      case sn::BufferRole::parameters:
      case sn::BufferRole::gradients:
      case sn::BufferRole::input:
      case sn::BufferRole::loss:
        CHECK(b.dtype == sn::f32);
        break;
      case sn::BufferRole::parameter_copy:
        ++copies;
        CHECK(b.dtype == sn::bf16);
        CHECK(b.size == 1'412);
        break;
      case sn::BufferRole::activation:
      case sn::BufferRole::activation_gradient:
        CHECK(b.dtype == sn::bf16);
        break;
      default:
        break;
    }
  }
  CHECK(copies == 1);
  // What each layer saves for backward follows its dtype: Linear 2 saves its input (Linear 0's
  // output, 4,096 B in bf16), the ReLU its output (the same buffer).
  static_assert(p.layers[2].saved_bytes == 4'096);
  static_assert(p.layers[1].saved_bytes == 4'096);
  static_assert(p.layers[0].saved_bytes == 32 * 8 * 4);  // the f32 model input
  static_assert(buffer_of(p, p.layers[2].output_buffer).size == 32 * 2 * 2);
}

// Mixed<f16>: the same tensors in f16, and the loss scaler's state (12 bytes → 256) in the
// optimizer's region, which SGD otherwise leaves empty.
TEST_CASE("precision: Mixed<f16> adds the loss scaler's state") {
  constexpr auto& p = mlp_plan<MixedF16>();
  static_assert(p.footprint.weights.count == 4'608);
  static_assert(p.footprint.optimizer_state.count == 256);
  static_assert(p.footprint.activations.count == 8'960);
  for (const sn::Buffer& b : p.buffers) {
    if (b.role == sn::BufferRole::parameter_copy || b.role == sn::BufferRole::activation)
      CHECK(b.dtype == sn::f16);
    if (b.role == sn::BufferRole::loss_scale)
      CHECK(b.size == 12);
  }
  // Adam's two moments stay f32 (2 × 3,072) beside the scaler.
  using AdamSetup = sn::Training<sn::Input<sn::f32, 8>, sn::Batch<32>, sn::Optimizer<sn::Adam>,
                                 sn::Precision<MixedF16>>;
  static_assert(sn::plan<Mlp, AdamSetup>().footprint.optimizer_state.count == 2 * 3'072 + 256);
}

// Pure<bf16>: no master copy; the parameters, their gradients and Adam's moments are bf16
// (1,536 each), the activations as under Mixed<bf16>.
TEST_CASE("precision: Pure<bf16> keeps everything in bf16") {
  constexpr auto& p = mlp_plan<PureBF16>();
  static_assert(p.footprint.weights.count == 1'536);
  static_assert(p.footprint.gradients.count == 1'536);
  static_assert(p.footprint.activations.count == 8'960);
  using AdamSetup = sn::Training<sn::Input<sn::f32, 8>, sn::Batch<32>, sn::Optimizer<sn::Adam>,
                                 sn::Precision<PureBF16>>;
  static_assert(sn::plan<Mlp, AdamSetup>().footprint.optimizer_state.count == 2 * 1'536);
  for (const sn::Buffer& b : p.buffers)
    CHECK(b.role != sn::BufferRole::parameter_copy);
}

// A residual block whose shortcut is the model's f32 input: the Add of the Linear's bf16 output
// and the f32 input is f32 (PyTorch's promotion), so it cannot run in place over its bf16 first
// input, and its gradient to the Linear is a bf16 buffer of its own, not the f32 dy.
// Layers: 0 Linear<16> (body), 1 Add. Input 16 features, batch 64.
TEST_CASE("precision: an Add of bf16 and f32 is f32, and its gradient is converted") {
  using Block = sn::Sequential<sn::Residual<sn::Linear<16>>>;
  using S = sn::Training<sn::Input<sn::f32, 16>, sn::Batch<64>, sn::Loss<sn::MSE>,
                         sn::Precision<Mixed16>>;
  constexpr auto& p = sn::plan<Block, S>();
  static_assert(p.layers[1].kind == sn::LayerKind::Add);
  static_assert(!p.layers[1].in_place);
  static_assert(buffer_of(p, p.layers[0].output_buffer).dtype == sn::bf16);
  static_assert(buffer_of(p, p.layers[1].output_buffer).dtype == sn::f32);
  static_assert(buffer_of(p, p.layers[1].output_gradient_buffer).dtype == sn::f32);
  static_assert(p.layers[1].input_gradient_buffer != p.layers[1].output_gradient_buffer);
  static_assert(buffer_of(p, p.layers[1].input_gradient_buffer).dtype == sn::bf16);
  static_assert(buffer_of(p, p.layers[1].input_gradient_buffer).size == 64 * 16 * 2);
  // Under FP32 the same Add runs over its input and passes dy on as its input's gradient.
  using F = sn::Training<sn::Input<sn::f32, 16>, sn::Batch<64>, sn::Loss<sn::MSE>>;
  static_assert(sn::plan<Block, F>().layers[1].in_place);
  static_assert(sn::plan<Block, F>().layers[1].input_gradient_buffer ==
                sn::plan<Block, F>().layers[1].output_gradient_buffer);
}

// The layers that keep their input's dtype do so whatever it is: a BatchNorm or a ReLU straight
// on the model's f32 input stays f32 under Mixed<bf16>, and after a convolution is bf16; the
// pool's window index and BatchNorm's batch statistics keep their own dtypes (u8, f32).
TEST_CASE("precision: layers without a product keep their input's dtype") {
  using M =
      sn::Sequential<sn::BatchNorm2d<>, sn::ReLU, sn::Conv2d<4, sn::Kernel<3>>, sn::BatchNorm2d<>,
                     sn::ReLU, sn::MaxPool2d<2>, sn::Flatten, sn::Linear<3>>;
  using S = sn::Training<sn::Input<sn::f32, 2, 6, 6>, sn::Batch<8>, sn::Precision<Mixed16>>;
  constexpr auto& p = sn::plan<M, S>();
  constexpr sn::DType expected[] = {sn::f32,  sn::f32,  sn::bf16, sn::bf16,
                                    sn::bf16, sn::bf16, sn::bf16, sn::bf16};
  for (std::size_t i = 0; i < p.layers.size(); ++i) {
    CAPTURE(i);
    CHECK(buffer_of(p, p.layers[i].output_buffer).dtype == expected[i]);
  }
  CHECK(buffer_of(p, p.layers[3].statistics_buffer).dtype == sn::f32);
  CHECK(buffer_of(p, p.layers[5].window_index_buffer).dtype == sn::u8);
  // The running statistics stay f32 under Mixed; two BatchNorms of 2 and 4 channels keep a mean
  // and a variance each: (2 + 4)·2 f32 = 48 B → 256.
  static_assert(p.footprint.non_trainable.count == 256);
}

TEST_CASE("precision: names, and the spellings the analyzer reads back") {
  sn::PrecisionKind k{};
  for (sn::PrecisionKind each : sn::precision_kinds) {
    CHECK(sn::parse_precision(sn::name_of(each), k));
    CHECK(k == each);
  }
  CHECK(std::string_view(sn::name_of(sn::PrecisionKind::MixedBF16)) == "Mixed<bf16>");
  CHECK_FALSE(sn::parse_precision("Mixed<f32>", k));
  static_assert(sn::detail::Mixed<sn::f16>::kind == sn::PrecisionKind::MixedF16);
}

}  // namespace

// Seed 001's SimpleCNN at batch 128 with Adam, which needs 22,795,776 B with a 1 MiB runtime and
// does not fit a 16 MiB device under FP32 (tests/compile_fail/cases/budget_seed_simple_cnn.cpp
// derives that). Under Mixed<bf16>, by hand:
//   weights   the f32 master 165,888 + the bf16 copy 41,418·2 = 82,836 → 82,944: 248,832
//   gradients 165,888, Adam's moments 331,776, inputs 1,573,376 and the f32 im2col workspace
//   110,592, as under FP32
//   activations, KiB [first, last step]: the conv's output 4,096 [0,9], the window index 512
//   (u8, unchanged) [2,8], the pool's output 1,024 [2,6], the logits 2.5 [4,5], the loss and the
//   predictions 0.5 each [5,11], d(logits) 2.5 [5,6], d(pool out) 1,024 [6,8], d(ReLU out)
//   4,096 [8,10]. Most at once, at step 8: 4,096 + 512 + 1,024 + 4,096 + 0.5 + 0.5 = 9,729 KiB
//   = 9,962,496 B, which a placement largest first reaches (as FP32's reaches its 18,945 KiB).
//   total 12,392,960; + the 1 MiB runtime: 13,441,536 ≤ 16 MiB.
TEST_CASE("precision: Mixed<bf16> makes seed 001's SimpleCNN fit 16 MiB") {
  using SimpleCNN = sn::Sequential<sn::Conv2d<16, sn::Kernel<3>, sn::Padding<1>>, sn::ReLU,
                                   sn::MaxPool2d<2>, sn::Flatten, sn::Linear<10>>;
  using Fp32 = sn::Training<sn::Input<sn::f32, 3, 32, 32>, sn::Batch<128>, sn::Optimizer<sn::Adam>,
                            sn::Loss<sn::CrossEntropy>>;
  using Mixed = sn::Training<sn::Input<sn::f32, 3, 32, 32>, sn::Batch<128>, sn::Optimizer<sn::Adam>,
                             sn::Loss<sn::CrossEntropy>, sn::Precision<Mixed16>>;
  constexpr sn::Device device{sn::MiB(16), sn::MiB(1)};
  constexpr auto& f = sn::plan<SimpleCNN, Mixed>().footprint;
  static_assert(f.weights.count == 248'832);
  static_assert(f.gradients.count == 165'888);
  static_assert(f.optimizer_state.count == 331'776);
  static_assert(f.inputs.count == 1'573'376);
  static_assert(f.workspace.count == 110'592);
  static_assert(f.activations.count == 9'962'496);
  static_assert(f.total().count == 12'392'960);
  static_assert(!sn::fits<SimpleCNN, Fp32>(device));
  static_assert(sn::fits<SimpleCNN, Mixed>(device));
}
