// Gradient accumulation in the plan (sn::Accumulate<K>, issue 39 item 2): the layers see a
// micro-batch, the batch's own buffers stay whole, and the loop is in the schedule's meaning, not
// unrolled. Every expected number is derived by hand in the comment beside it; a region's bytes
// are its buffers' sizes, each rounded up to 256.
#include <doctest/doctest.h>

#include <cstdint>

#include <staticnet/staticnet.hpp>

#include "samples/simple_cnn.hpp"
#include "test_support.hpp"

namespace sn = staticnet;
using sn::testing::round256;

namespace {

// One Linear(64 → 64) on a batch of 16 with an MSE loss and SGD: small enough to place by hand.
using Square = sn::Sequential<sn::Linear<64>>;
using Whole = sn::Training<sn::Input<sn::f32, 64>, sn::Batch<16>, sn::Loss<sn::MSE>>;
using InFour =
    sn::Training<sn::Input<sn::f32, 64>, sn::Batch<16>, sn::Loss<sn::MSE>, sn::Accumulate<4>>;

constexpr auto& whole = sn::plan<Square, Whole>();
constexpr auto& in_four = sn::plan<Square, InFour>();

template <std::size_t L>
constexpr const sn::Buffer* find(const sn::Plan<L>& p, sn::BufferRole role) {
  for (const sn::Buffer& b : p.buffers)
    if (b.role == role)
      return &b;
  return nullptr;
}

}  // namespace

// Both plans:
//   parameters 64·64 + 64 = 4,160 f32 = 16,640 B (65 · 256: no rounding); gradients the same;
//   SGD keeps no state; no workspace (no convolution).
//   inputs: the input 16·64 f32 = 4,096 B, the targets 16·64 f32 = 4,096 B: 8,192. The batch's
//   buffers are whole under Accumulate<4> too: the loader writes 16 samples.
// The activation region. The steps: 0 forward (reads the input, writes the output), 1 the loss
// (reads the output and the targets, writes the losses and d(output)), 2 backward (reads d(output)
// and the input; writes the weights' gradients, no dx: the input needs none), 3 the update.
//   Whole batch: the output [0, 1] 16·64·4 = 4,096; the losses [1, 3] 16·4 = 64 → 256; d(output)
//   [1, 2] 4,096. All three are live at step 1: 8,448.
//   Accumulate<4>, micro-batches of 4: the output 4·64·4 = 1,024; d(output) 1,024; the losses stay
//   16 samples, 256, and live from step 0 (each micro-batch writes its slice while the later ones'
//   forward steps run). At step 1: 1,024 + 256 + 1,024 = 2,304.
TEST_CASE("accumulate: the layers' tensors shrink to the micro-batch, the batch stays whole") {
  static_assert(whole.footprint.weights.count == 16'640);
  static_assert(in_four.footprint.weights.count == 16'640);
  static_assert(in_four.footprint.gradients.count == 16'640);
  static_assert(in_four.footprint.optimizer_state.count == 0);
  static_assert(whole.footprint.inputs.count == 8'192);
  static_assert(in_four.footprint.inputs.count == 8'192);
  static_assert(whole.footprint.activations.count == 8'448);
  static_assert(in_four.footprint.activations.count == 2'304);
  static_assert(in_four.footprint.total().count == 2 * 16'640 + 8'192 + 2'304);  // 43,776

  static_assert(in_four.batch() == 16);
  static_assert(in_four.micro_batches() == 4);
  static_assert(in_four.micro_batch() == 4);
  static_assert(in_four.input_shape == sn::Shape{4, 64});  // what the layers see
  CHECK(find(in_four, sn::BufferRole::input)->size == 16 * 64 * 4);
  CHECK(find(in_four, sn::BufferRole::targets)->size == 16 * 64 * 4);
  CHECK(find(in_four, sn::BufferRole::loss)->size == 16 * 4);
  CHECK(find(in_four, sn::BufferRole::loss)->first_step == 0);
  CHECK(find(whole, sn::BufferRole::loss)->first_step == 1);
  // What backward keeps of the input: the micro-batch's slice, 4·64·4.
  CHECK(in_four.layers[0].saved_bytes == 1'024);
  CHECK(whole.layers[0].saved_bytes == 4'096);
}

// The schedule is the loop's body and the update: four steps either way; every step but the
// update runs once per micro-batch.
TEST_CASE("accumulate: the schedule is one micro-batch's steps, then the update") {
  static_assert(in_four.step_count() == whole.step_count());
  static_assert(in_four.step_count() == 4);
  for (std::int64_t s = 0; s < 3; ++s)
    CHECK(in_four.runs_per_step(s) == 4);
  CHECK(in_four.runs_per_step(3) == 1);
  CHECK(in_four.schedule[3].kind == sn::StepKind::update);
  CHECK(whole.runs_per_step(0) == 1);
}

// FLOPs are the step's: the Linear's forward, 2·B·64·64 multiply-adds plus B·64 bias adds, the same
// for one batch of 16 (2·16·4,096 + 16·64 = 132,096) as for four of 4 (4 · 33,024).
TEST_CASE("accumulate: a step's arithmetic is the whole batch's") {
  static_assert(whole.layers[0].forward_flops == 132'096);
  static_assert(in_four.layers[0].forward_flops == 132'096);
  static_assert(in_four.layers[0].backward_flops == whole.layers[0].backward_flops);
}

// The largest batch that fits 43,776 B, the accumulated plan's total at 16 (above). Without
// accumulation a batch of B needs 33,280 (parameters and gradients) + 512·B (input and targets,
// 256·B each) + 2 · 256·B + 256 (output, d(output), losses) = 33,536 + 1,024·B up to B = 16 (the
// losses' slot holds 64 samples): B = 10 is 43,776 exactly, 11 is 44,800. As four micro-batches,
// B = 20 (micro-batches of 5) needs 33,280 + 10,240 + 1,280 + 256 + 1,280 = 46,336: 16 is the
// largest multiple of 4 that fits.
TEST_CASE("accumulate: max_batch searches the batches K divides") {
  static_assert(sn::max_batch<Square, Whole>(sn::Bytes{43'776}) == 10);
  static_assert(sn::max_batch<Square, InFour>(sn::Bytes{43'776}) == 16);
  static_assert(sn::max_batch<Square, InFour>(sn::Bytes{43'775}) == 12);
}

// A model whose activations dominate: SimpleCNN's (samples/simple_cnn.hpp) at batch 128 against
// itself at 32 and as four micro-batches of 32. The activation region of the accumulated plan is
// the batch-32 plan's, but for the losses and predictions, which hold 128 samples (512 B each,
// where 32 samples' 128 B take a 256-byte slot) and live through the loop.
TEST_CASE("accumulate: SimpleCNN in four micro-batches holds batch 32's activations") {
  using B128 = sn::Training<sn::Input<sn::f32, 3, 32, 32>, sn::Batch<128>,
                            sn::Loss<sn::CrossEntropy>, sn::Optimizer<sn::Adam>>;
  using B32 = sn::Training<sn::Input<sn::f32, 3, 32, 32>, sn::Batch<32>, sn::Loss<sn::CrossEntropy>,
                           sn::Optimizer<sn::Adam>>;
  using B128In4 =
      sn::Training<sn::Input<sn::f32, 3, 32, 32>, sn::Batch<128>, sn::Loss<sn::CrossEntropy>,
                   sn::Optimizer<sn::Adam>, sn::Accumulate<4>>;
  constexpr auto& full = sn::plan<sn::samples::SimpleCNN, B128>();
  constexpr auto& small = sn::plan<sn::samples::SimpleCNN, B32>();
  constexpr auto& accumulated = sn::plan<sn::samples::SimpleCNN, B128In4>();
  static_assert(accumulated.footprint.inputs == full.footprint.inputs);
  static_assert(accumulated.footprint.weights == full.footprint.weights);
  static_assert(accumulated.footprint.optimizer_state == full.footprint.optimizer_state);
  static_assert(accumulated.footprint.workspace == full.footprint.workspace);
  const std::int64_t results_growth = 2 * (round256(128 * 4) - round256(32 * 4));  // 512
  CHECK(accumulated.footprint.activations.count <=
        small.footprint.activations.count + results_growth);
  CHECK(accumulated.footprint.activations.count >= small.footprint.activations.count);
  CHECK(accumulated.footprint.activations.count * 3 < full.footprint.activations.count);
}

// A BatchNorm1d normalises each channel over the samples a step (or a micro-batch) sees together,
// so a batch of one sample does not plan (compile_fail/batch_norm_one_sample*.cpp). max_batch
// never answers such a batch: its search starts at two samples per micro-batch. At the budget the
// plan of 2 (of 8 as four micro-batches) needs, that is the answer; a byte less, nothing fits.
namespace {
using Normalised = sn::Sequential<sn::Linear<64>, sn::BatchNorm1d<>, sn::ReLU, sn::Linear<10>>;
using PairBatch = sn::Training<sn::Input<sn::f32, 64>, sn::Batch<2>>;
using PairsInFour = sn::Training<sn::Input<sn::f32, 64>, sn::Batch<8>, sn::Accumulate<4>>;
constexpr sn::Bytes pair = sn::plan<Normalised, PairBatch>().footprint.total();
constexpr sn::Bytes pairs_in_four = sn::plan<Normalised, PairsInFour>().footprint.total();
}  // namespace

TEST_CASE("accumulate: max_batch starts at two samples per micro-batch under a BatchNorm1d") {
  static_assert(sn::max_batch<Normalised, PairBatch>(pair) == 2);
  static_assert(sn::max_batch<Normalised, PairBatch>(pair - sn::Bytes{1}) == 0);
  static_assert(sn::max_batch<Normalised, PairsInFour>(pairs_in_four) == 8);
  static_assert(sn::max_batch<Normalised, PairsInFour>(pairs_in_four - sn::Bytes{1}) == 0);
}
