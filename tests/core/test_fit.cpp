// fit() (fit.hpp, issue 39 item 4): the first remedy that fits a device, cheapest first. The
// model is test_accumulate.cpp's Linear(64 → 64) at a batch of 16 (MSE, SGD), whose bytes that
// file derives by hand; every number below follows from them:
//   the whole batch: 33,280 (parameters and gradients) + 8,192 (input and targets) + 8,448
//   (output, d(output), losses) = 49,920;
//   as K micro-batches of m = 16/K: 33,280 + 8,192 + 512·m + 256 (output and d(output) of m
//   samples, 256·m each, and the losses' slot), so K = 2: 45,824, K = 4: 43,776, K = 8: 42,752,
//   K = 16: 42,240;
//   a smaller batch B, not accumulated: 33,536 + 1,024·B (B ≤ 16): B = 8 41,728, B = 1 34,560.
#include <doctest/doctest.h>

#include <staticnet/staticnet.hpp>

#include "samples/deep_cnn.hpp"
#include "tests/analyzer/data/mlp50_checkpoint.hpp"

namespace sn = staticnet;

namespace {

using Square = sn::Sequential<sn::Linear<64>>;
using Whole = sn::Training<sn::Input<sn::f32, 64>, sn::Batch<16>, sn::Loss<sn::MSE>>;
using InFour =
    sn::Training<sn::Input<sn::f32, 64>, sn::Batch<16>, sn::Loss<sn::MSE>, sn::Accumulate<4>>;

constexpr sn::Device budget(std::int64_t bytes, std::int64_t overhead = 0) {
  return sn::Device{sn::Bytes{bytes}, sn::Bytes{overhead}};
}

}  // namespace

TEST_CASE("fit: a setup that fits needs no remedy") {
  constexpr sn::Fit f = sn::fit<Square, Whole>(budget(49'920));
  static_assert(f.remedy == sn::Remedy::none);
  static_assert(f.required.count == 49'920);
  static_assert(f.setup.batch == 16 && f.setup.micro_batches == 1);
}

TEST_CASE("fit: the fewest micro-batches that fit, the batch unchanged") {
  constexpr sn::Fit four = sn::fit<Square, Whole>(budget(44'000));  // K = 2 needs 45,824
  static_assert(four.remedy == sn::Remedy::accumulate);
  static_assert(four.setup.micro_batches == 4);
  static_assert(four.setup.batch == 16);
  static_assert(four.required.count == 43'776);
  constexpr sn::Fit eight = sn::fit<Square, Whole>(budget(43'000));
  static_assert(eight.setup.micro_batches == 8);
  static_assert(eight.required.count == 42'752);
  // The device's overhead counts: 1,000 B of it leave 44,000, and it is in what K = 4 requires.
  constexpr sn::Fit with_overhead = sn::fit<Square, Whole>(budget(45'000, 1'000));
  static_assert(with_overhead.setup.micro_batches == 4);
  static_assert(with_overhead.required.count == 44'776);
  // A setup accumulating already tries the multiples of its K: 8 after 4.
  constexpr sn::Fit more = sn::fit<Square, InFour>(budget(43'000));
  static_assert(more.remedy == sn::Remedy::accumulate);
  static_assert(more.setup.micro_batches == 8);
}

TEST_CASE("fit: when no accumulation fits, the largest batch that does") {
  // 16 micro-batches of one sample need 42,240; a batch of 8 needs 41,728, of 9 42,752.
  constexpr sn::Fit f = sn::fit<Square, Whole>(budget(42'000));
  static_assert(f.remedy == sn::Remedy::smaller_batch);
  static_assert(f.setup.batch == 8);
  static_assert(f.setup.micro_batches == 1);
  static_assert(f.required.count == 41'728);
  // An Inference setup has no step to accumulate: a smaller batch at once. Its bytes at B: the
  // parameters 16,640, the input 256·B, the output 256·B: B = 4 needs 18,688, 5 19,200.
  using Infer = sn::Inference<sn::Input<sn::f32, 64>, sn::Batch<16>>;
  constexpr sn::Fit i = sn::fit<Square, Infer>(budget(19'000));
  static_assert(i.remedy == sn::Remedy::smaller_batch);
  static_assert(i.setup.batch == 4);
  static_assert(i.required.count == 18'688);
}

TEST_CASE("fit: nothing fits below the smallest batch's bytes") {
  constexpr sn::Fit f = sn::fit<Square, Whole>(budget(34'559));
  static_assert(!f.found());
  static_assert(f.setup.batch == 1);
  static_assert(f.required.count == 34'560);
  static_assert(sn::fit<Square, Whole>(budget(34'560)).setup.batch == 1);
}

TEST_CASE("fit: fit_t is the chosen setup as a type, to plan and train") {
  constexpr sn::Device device = budget(44'000);
  using Fitted = sn::fit_t<Square, Whole, device>;
  static_assert(sn::plan<Square, Fitted>().micro_batches() == 4);
  static_assert(sn::plan<Square, Fitted>().footprint.total().count == 43'776);
  static_assert(sn::fits<Square, Fitted>(device));
  static_assert(!sn::fits<Square, Whole>(device));
  static_assert(sn::assert_fits<Square, Fitted, device>());
}

// fit_v, for a device known at compile time, plans each candidate in an evaluation of its own
// (what assert_fits uses); it must answer as fit() does, on every path above.
namespace {
template <class M, class S, sn::Device D>
constexpr bool same_answer() {
  constexpr sn::Fit one = sn::fit<M, S>(D);
  constexpr sn::Fit staged = sn::fit_v<M, S, D>;
  return one.remedy == staged.remedy && one.setup.batch == staged.setup.batch &&
         one.setup.micro_batches == staged.setup.micro_batches &&
         one.setup.checkpoint == staged.setup.checkpoint && one.required == staged.required &&
         one.step_flops == staged.step_flops && one.recompute_flops == staged.recompute_flops;
}
// A BatchNorm1d after a Linear: a micro-batch of one sample does not plan (test_accumulate.cpp),
// so the smallest batch either search starts from is two.
using Normalised = sn::Sequential<sn::Linear<64>, sn::BatchNorm1d<>, sn::ReLU, sn::Linear<10>>;
using NormalisedSetup = sn::Training<sn::Input<sn::f32, 64>, sn::Batch<16>>;
}  // namespace

TEST_CASE("fit: fit_v, one evaluation per candidate, answers as fit() does") {
  static_assert(same_answer<Square, Whole, budget(49'920)>());
  static_assert(same_answer<Square, Whole, budget(44'000)>());
  static_assert(same_answer<Square, Whole, budget(45'000, 1'000)>());
  static_assert(same_answer<Square, InFour, budget(43'000)>());
  static_assert(same_answer<Square, Whole, budget(42'000)>());
  static_assert(same_answer<Square, Whole, budget(34'559)>());
  static_assert(sn::fit_v<Square, Whole, budget(44'000)>.setup.micro_batches == 4);
  constexpr std::int64_t pair = sn::fit<Normalised, NormalisedSetup>(budget(1)).setup.batch;
  static_assert(pair == 2);  // nothing fits a byte; the smallest batch is two samples
  static_assert(same_answer<Normalised, NormalisedSetup, budget(1)>());
  constexpr std::int64_t at_two = sn::fit<Normalised, NormalisedSetup>(budget(1)).required.count;
  static_assert(same_answer<Normalised, NormalisedSetup, budget(at_two + 2'000)>());
  static_assert(sn::fit_v<Normalised, NormalisedSetup, budget(at_two + 2'000)>.found());
}

// The two budgets fit() checks beside the device's memory. A host budget that even the smallest
// batch exceeds (the trainer's state copy alone is 4 · 4,160 · 1 = 16,640 B under SGD): nothing
// fits, and the bytes given are the smallest batch's on the device, 34,560, not a sentinel. A
// microcontroller whose flash is too small for an Int8 model's 4,096 weights (int8) and its
// channel numbers: nothing fits, whatever the SRAM, and no bytes are given.
namespace {
constexpr sn::Device roomy_but_host(std::int64_t host) {
  sn::Device d = budget(1'000'000);
  d.host_memory = sn::Bytes{host};
  return d;
}
constexpr sn::Device flash_of(std::int64_t flash) {
  return sn::Device{.memory = sn::MiB(1), .overhead = sn::Bytes{0}, .flash = sn::Bytes{flash}};
}
using SquareInt8 = sn::Inference<sn::Input<sn::f32, 64>, sn::Precision<sn::Int8>>;
}  // namespace

TEST_CASE("fit: a host budget and a microcontroller's flash") {
  constexpr sn::Fit host = sn::fit<Square, Whole>(roomy_but_host(1'000));
  static_assert(!host.found());
  static_assert(host.setup.batch == 1);
  static_assert(host.required.count == 34'560);
  static_assert(same_answer<Square, Whole, roomy_but_host(1'000)>());
  static_assert(sn::fit<Square, Whole>(roomy_but_host(1'000'000)).remedy == sn::Remedy::none);
  constexpr sn::Fit flash = sn::fit<Square, SquareInt8>(flash_of(1'000));
  static_assert(!flash.found());
  static_assert(flash.required.count == 0);
  static_assert(same_answer<Square, SquareInt8, flash_of(1'000)>());
  static_assert(sn::fit<Square, SquareInt8>(flash_of(1'000'000)).remedy == sn::Remedy::none);
  static_assert(same_answer<Square, SquareInt8, flash_of(1'000'000)>());
}

// Checkpointing, after accumulation: test_checkpoint.cpp's 50-layer MLP (25 pairs of Linear(64)
// and ReLU, a batch of 16, MSE, SGD). Its bytes, from that file's derivation (each activation
// buffer 256 B a sample, 10 of them live at the peak under Sqrt and 26 without, the losses' slot
// 256): parameters and gradients 2 · 25 · 16,640 = 832,000; the whole batch's input and targets
// 8,192; so as K micro-batches of m = 16/K,
//   kept:  840,192 + 26 · 256 · m + 256   (m = 16: 946,944; 4: 867,072; 1: 847,104)
//   Sqrt:  840,192 + 10 · 256 · m + 256   (m = 16: 881,408; 1: 843,008).
// Sqrt recomputes 2,129,920 FLOPs whatever m (test_checkpoint.cpp). The step's FLOPs: forward
// 25 · 133,120 = 3,328,000; backward, a Linear's 2 · 16 · 64 · 64 = 131,072 for dW, 1,024 for
// the bias and 131,072 for dx (not the first's), a ReLU's 1,024: 24 · 263,168 + 132,096 +
// 25 · 1,024 = 6,473,728; together 9,801,728, of which 2,129,920 is 21.7 %: 22.
namespace {
using Mlp50 = mlp50::Net;
using Mlp50Whole = sn::Training<sn::Input<sn::f32, 64>, sn::Batch<16>, sn::Loss<sn::MSE>>;
using Mlp50InSixteen =
    sn::Training<sn::Input<sn::f32, 64>, sn::Batch<16>, sn::Loss<sn::MSE>, sn::Accumulate<16>>;
using Mlp50Sqrt = sn::Training<sn::Input<sn::f32, 64>, sn::Batch<16>, sn::Loss<sn::MSE>,
                               sn::Checkpoint<sn::Sqrt>>;
}  // namespace

TEST_CASE("fit: checkpointing when no accumulation fits, with the compute it adds") {
  // In sixteen micro-batches of one sample already: 847,104 B, no more micro-batches to try; under
  // Sqrt 843,008.
  constexpr sn::Fit f = sn::fit<Mlp50, Mlp50InSixteen>(budget(845'000));
  static_assert(f.remedy == sn::Remedy::checkpoint);
  static_assert(f.setup.checkpoint == sn::CheckpointKind::sqrt);
  static_assert(f.setup.batch == 16 && f.setup.micro_batches == 16);
  static_assert(f.required.count == 843'008);
  static_assert(f.recompute_flops == 2'129'920);
  static_assert(f.step_flops == 9'801'728);
  static_assert(f.extra_compute_percent() == 22);
  static_assert(same_answer<Mlp50, Mlp50InSixteen, budget(845'000)>());
  // fit_t trains it: the chosen setup's plan is the one counted.
  using Fitted = sn::fit_t<Mlp50, Mlp50InSixteen, budget(845'000)>;
  static_assert(sn::plan<Mlp50, Fitted>().footprint.total().count == 843'008);
  static_assert(sn::plan<Mlp50, Fitted>().recompute_flops() == 2'129'920);
  // A byte less and nothing fits: a batch of 16 in micro-batches of one is the smallest.
  static_assert(!sn::fit<Mlp50, Mlp50InSixteen>(budget(843'007)).found());
}

TEST_CASE("fit: accumulation comes before checkpointing, which adds compute") {
  // 890,000 B: the whole batch does not fit, Sqrt would (881,408), but four micro-batches do
  // first (two need 893,696).
  constexpr sn::Fit f = sn::fit<Mlp50, Mlp50Whole>(budget(890'000));
  static_assert(f.remedy == sn::Remedy::accumulate);
  static_assert(f.setup.micro_batches == 4 && f.required.count == 867'072);
  static_assert(f.setup.checkpoint == sn::CheckpointKind::none);
  static_assert(f.recompute_flops == 0 && f.extra_compute_percent() == 0);
  static_assert(same_answer<Mlp50, Mlp50Whole, budget(890'000)>());
  // Every candidate, cheapest first, as the analyzer's --fit lists them.
  constexpr int count = [] {
    int n = 0;
    sn::detail::for_each_fitting(
        sn::flatten<Mlp50>(), Mlp50Whole::desc(), budget(890'000), [&](const sn::Fit& c) {
          const std::int64_t m = 16 / c.setup.micro_batches;
          const std::int64_t live = c.remedy == sn::Remedy::checkpoint ? 10 : 26;
          const bool by_hand = c.remedy == sn::Remedy::smaller_batch
                                   ? c.setup.batch == 8 && c.required.count == 889'600
                                   : c.required.count == 840'192 + live * 256 * m + 256;
          n += by_hand ? 1 : 1000;
          return true;
        });
    return n;
  }();
  // Accumulate<4, 8, 16>; Sqrt where no accumulation fits, at the setup's 1 and at 2 (860,928)
  // micro-batches; a batch of 8 (889,600).
  static_assert(count == 3 + 2 + 1);
  // A setup that checkpoints already is not offered Sqrt again. Under Sqrt, sixteen micro-batches
  // of one need 843,008; a batch B not accumulated 832,256 + B · (512 + 2,560) (the input and
  // targets, and ten live buffers): B = 3 841,472, 4 844,544.
  constexpr sn::Fit again = sn::fit<Mlp50, Mlp50Sqrt>(budget(842'000));
  static_assert(again.remedy == sn::Remedy::smaller_batch);
  static_assert(again.setup.checkpoint == sn::CheckpointKind::sqrt);
  static_assert(again.setup.batch == 3);
  static_assert(again.required.count == 841'472);
  static_assert(again.recompute_flops > 0);
  static_assert(same_answer<Mlp50, Mlp50Sqrt, budget(842'000)>());
}

// Seed 001's DeepCNN (samples/deep_cnn.hpp, corrected), at a batch its author warns would not fit
// ("a sufficiently large batch size"): 2048 images of 3x64x64, Adam, on a Jetson Nano (4 GiB
// shared by the CPU and the GPU, 1.5 GiB of it the system's and CUDA's). By hand, from the
// sample's derivation at batch 64 (every buffer there a multiple of 256 bytes, so all of them
// scale with the batch, and so does their placement: 87,032,320 B of activations, the live peak
// 85,459,456 plus the placement's 1,572,864, as test_samples.cpp pins them):
//   weights 700,928 + gradients 700,928 + Adam 1,401,856 + inputs 2048*3*64*64*4 = 100,663,296
//   and labels 2048*4 = 8,192 + workspace (one sample's im2col, conv2) 1,179,648;
//   the trainer's host bytes, counted on a device that shares them: two batch slots
//   2 * 100,671,488 + pinned staging (two copies of the batch, and each sample's loss and
//   prediction) 2 * 100,671,488 + 2048 * 8 + one f32 copy of parameters and moments
//   3 * 175,178 * 4 = 2,102,136: 404,804,472.
// The whole batch: activations 32 * 87,032,320 = 2,785,034,240, 4,905,106,296 B with the rest
// and the overhead, past 4 GiB (and past it even at the live peak, 32 * 85,459,456). Two
// micro-batches of 1024: 16 * 87,032,320 + 8,192 (the whole batch's losses and predictions are
// kept for the step, 2 * 2048 * 4, where a micro-batch's would be half) = 1,392,525,312, and
// 3,512,597,368 B in all: it fits, with nothing recomputed.
TEST_CASE("fit: seed 001's DeepCNN at batch 2048 fits a Jetson Nano as two micro-batches") {
  using Seed = sn::Training<sn::Input<sn::f32, 3, 64, 64>, sn::Batch<2048>,
                            sn::Loss<sn::CrossEntropy>, sn::Optimizer<sn::Adam>>;
  constexpr std::int64_t others = 700'928 + 700'928 + 1'401'856 + 100'671'488 + 1'179'648;
  constexpr std::int64_t host = 404'804'472;
  constexpr std::int64_t overhead = 1'610'612'736;
  constexpr auto& whole = sn::plan<sn::samples::DeepCNN, Seed>();
  static_assert(whole.footprint.activations.count == std::int64_t{32} * 87'032'320);
  static_assert(whole.host.total().count == host);
  static_assert(sn::required_memory(whole, sn::device::jetson_nano).count ==
                others + 2'785'034'240 + host + overhead);
  static_assert(others + std::int64_t{32} * 85'459'456 + host + overhead > 4'294'967'296);
  static_assert(!sn::fits<sn::samples::DeepCNN, Seed>(sn::device::jetson_nano));

  constexpr sn::Fit f = sn::fit<sn::samples::DeepCNN, Seed>(sn::device::jetson_nano);
  static_assert(f.remedy == sn::Remedy::accumulate);
  static_assert(f.setup.batch == 2048 && f.setup.micro_batches == 2);
  static_assert(f.required.count == others + 1'392'525'312 + host + overhead);
  static_assert(f.required.count == 3'512'597'368);
  static_assert(f.recompute_flops == 0);
  using Fitted = sn::fit_t<sn::samples::DeepCNN, Seed, sn::device::jetson_nano>;
  static_assert(sn::fits<sn::samples::DeepCNN, Fitted>(sn::device::jetson_nano));
  // The seed's own batch of 64 fits as it is.
  static_assert(
      sn::fit<sn::samples::DeepCNN, sn::samples::DeepCNNTraining>(sn::device::jetson_nano).remedy ==
      sn::Remedy::none);
  CHECK(f.extra_compute_percent() == 0);
}
