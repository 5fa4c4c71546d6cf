// The trainer's host memory in the plan (plan.host, issue 39 item 3) and the budgets that count it:
// a device whose CPU and GPU share one memory adds it, a host budget checks it apart. Every
// expected number is derived by hand in the comment beside it (a region's buffers occupy their
// sizes rounded up to 256).
#include <doctest/doctest.h>

#include <cstdint>

#include <staticnet/staticnet.hpp>

namespace sn = staticnet;

namespace {

// One Linear(64 → 64) on a batch of 16, MSE, SGD (test_accumulate.cpp places it by hand: weights
// 16,640, gradients 16,640, inputs 8,192, activations 8,448; total 49,920).
using Square = sn::Sequential<sn::Linear<64>>;
using SquareSetup = sn::Training<sn::Input<sn::f32, 64>, sn::Batch<16>, sn::Loss<sn::MSE>>;
using SquareInFour =
    sn::Training<sn::Input<sn::f32, 64>, sn::Batch<16>, sn::Loss<sn::MSE>, sn::Accumulate<4>>;

// A classifier with Adam, three batch slots, and with Prefetch.
using Classifier = sn::Sequential<sn::Linear<10>>;
using ClassifierSetup =
    sn::Training<sn::Input<sn::f32, 20>, sn::Batch<8>, sn::Optimizer<sn::Adam>, sn::BatchSlots<3>>;
using ClassifierPrefetch = sn::Training<sn::Input<sn::f32, 20>, sn::Batch<8>,
                                        sn::Optimizer<sn::Adam>, sn::BatchSlots<3>, sn::Prefetch>;

// Running statistics are part of the state a checkpoint copies.
using Normed = sn::Sequential<sn::Linear<6>, sn::BatchNorm1d<>, sn::ReLU, sn::Linear<3>>;
using NormedSetup =
    sn::Training<sn::Input<sn::f32, 5>, sn::Batch<4>, sn::Optimizer<sn::SGDMomentum>>;

constexpr auto& square = sn::plan<Square, SquareSetup>();

}  // namespace

// Square, whole batch or 4 micro-batches alike (the loader and the staging hold the whole batch):
//   batch slots: 2 (the default) × (16·64 f32 inputs + 16·64 f32 targets) = 2 × 8,192 = 16,384
//   pinned staging: 2 × the inputs region 8,192 + 16 losses f32 + 16 predictions i32 = 16,512
//   checkpoint state: parameters 64·64 + 64 = 4,160 f32, SGD keeps no moment: 16,640
TEST_CASE("host: the loader's slots, the pinned staging and the checkpoint's copy, by hand") {
  static_assert(square.host.batch_slots.count == 16'384);
  static_assert(square.host.pinned_staging.count == 16'512);
  static_assert(square.host.checkpoint_state.count == 16'640);
  static_assert(square.host.total().count == 49'536);
  // The CPU trainer: no staging; its arena, 49,920 B, is host memory.
  static_assert(square.footprint.total().count == 49'920);
  static_assert(square.host.cpu_trainer_total(square.footprint).count == 16'384 + 16'640 + 49'920);
  constexpr auto& in_four = sn::plan<Square, SquareInFour>();
  static_assert(in_four.host == square.host);
}

// Classifier, Input 20, batch 8, Adam, BatchSlots<3>:
//   batch slots: 3 × (8·20·4 = 640 + 8 i32 labels 32) = 2,016
//   inputs region: the input 640 → 768, the labels 32 → 256: 1,024; pinned: 2 × 1,024 + 8·8 = 2,112
//   checkpoint state: (20·10 + 10 = 210 parameters) × (1 + Adam's two moments) × 4 = 2,520
// Under Prefetch the CUDA trainer stages the batch's layout as next_batch mirrors it: the input's
// 768 (its place, to the labels) + the labels' 32 = 800; pinned: 2 × 800 + 64 = 1,664.
TEST_CASE("host: BatchSlots<N> sets the slots, and Prefetch stages the batch layout") {
  constexpr auto& p = sn::plan<Classifier, ClassifierSetup>();
  static_assert(p.setup.batch_slots == 3);
  static_assert(p.footprint.inputs.count == 1'024);
  static_assert(p.host.batch_slots.count == 2'016);
  static_assert(p.host.pinned_staging.count == 2'112);
  static_assert(p.host.checkpoint_state.count == 2'520);
  constexpr auto& prefetch = sn::plan<Classifier, ClassifierPrefetch>();
  static_assert(prefetch.host.pinned_staging.count == 1'664);
  static_assert(prefetch.host.batch_slots == p.host.batch_slots);
  static_assert(sn::Training<sn::Input<sn::f32, 20>>::desc().batch_slots == 2);  // the default
}

// Normed: parameters 5·6 + 6 = 36, BatchNorm's weight and bias 12, 6·3 + 3 = 21: 69; running
// statistics 2 × 6 = 12. SGDMomentum keeps one moment: (69 × 2 + 12) × 4 = 600.
TEST_CASE("host: the checkpoint's copy holds the optimizer's moments and the running statistics") {
  constexpr auto& p = sn::plan<Normed, NormedSetup>();
  static_assert(p.parameter_count == 69);
  static_assert(p.non_trainable_count == 12);
  static_assert(p.host.checkpoint_state.count == 600);
}

TEST_CASE("host: an inference plan holds no trainer's host memory") {
  constexpr auto& p = sn::plan<Square, sn::Inference<sn::Input<sn::f32, 64>, sn::Batch<16>>>();
  static_assert(p.host == sn::HostFootprint{});
}

// A device that shares one memory with its host counts plan.host: Square needs 49,920 + 49,536 =
// 99,456 B there, 49,920 B on a device of its own memory.
TEST_CASE("host: a device that shares host memory counts the trainer's host bytes") {
  constexpr sn::Device own{.memory = sn::Bytes{99'455}, .overhead = sn::Bytes{0}};
  constexpr sn::Device shared{
      .memory = sn::Bytes{99'455}, .overhead = sn::Bytes{0}, .shares_host_memory = true};
  static_assert(sn::required_memory(square, own).count == 49'920);
  static_assert(sn::required_memory(square, shared).count == 99'456);
  static_assert(sn::fits<Square, SquareSetup>(own));
  static_assert(!sn::fits<Square, SquareSetup>(shared));
  constexpr sn::Device shared_enough{
      .memory = sn::Bytes{99'456}, .overhead = sn::Bytes{0}, .shares_host_memory = true};
  static_assert(sn::fits<Square, SquareSetup>(shared_enough));
  static_assert(sn::assert_fits<Square, SquareSetup, shared_enough>());

  // Every Jetson profile shares; no discrete GPU's does.
  static_assert(sn::device::jetson_nano.shares_host_memory);
  static_assert(sn::device::jetson_orin_nano.shares_host_memory);
  static_assert(sn::device::jetson_agx_orin_32.shares_host_memory);
  static_assert(sn::device::jetson_agx_orin_64.shares_host_memory);
  static_assert(!sn::device::h100_80gb.shares_host_memory);
  static_assert(!sn::device::t4.shares_host_memory);
  static_assert(sn::required_memory(square, sn::device::jetson_nano) ==
                sn::Bytes{99'456} + sn::device::jetson_nano.overhead);
}

// The largest batch on a shared device: the search counts the host bytes at every batch it tries.
// Square at batch b (SGD, MSE, f32, no workspace): weights and gradients 16,640 each; inputs
// 2 · r(256·b) (input and targets, 256 B a sample); activations, the output and d(output) at
// r(256·b) each and the losses r(4·b), all live at the loss's step: 2 · r(256·b) + r(4·b).
// Host: slots 2 · 512·b, staging 2 · 2 · r(256·b) + 8·b, checkpoint 16,640.
// At b = 64: device 33,280 + 32,768 + 32,768 + 256 = 99,072; host 65,536 + 65,536 + 512 + 16,640
// = 148,224; together 247,296. At b = 65: device 33,280 + 33,280 + 33,280 + 512 = 100,352; host
// 66,560 + 66,560 + 520 + 16,640 = 150,280; together 250,632.
TEST_CASE("host: max_batch on a shared device counts the host bytes of each batch") {
  constexpr auto layers = sn::flatten<Square>();
  constexpr sn::Device shared{
      .memory = sn::Bytes{247'296}, .overhead = sn::Bytes{0}, .shares_host_memory = true};
  CHECK(sn::detail::total_for_batch(layers, SquareSetup::desc(), 64, shared) == 247'296);
  CHECK(sn::detail::total_for_batch(layers, SquareSetup::desc(), 65, shared) == 250'632);
  CHECK(sn::detail::total_for_batch(layers, SquareSetup::desc(), 64) == 99'072);
  CHECK(sn::max_batch<Square, SquareSetup>(shared) == 64);
  constexpr sn::Device own{.memory = sn::Bytes{247'296}, .overhead = sn::Bytes{0}};
  CHECK(sn::max_batch<Square, SquareSetup>(own) > 64);
}

// A host budget is checked apart from the device's memory: Square's trainer holds 49,536 B.
TEST_CASE("host: a device's host budget checks plan.host apart") {
  constexpr sn::Device tight{
      .memory = sn::GiB(1), .overhead = sn::Bytes{0}, .host_memory = sn::Bytes{49'535}};
  constexpr sn::Device enough{
      .memory = sn::GiB(1), .overhead = sn::Bytes{0}, .host_memory = sn::Bytes{49'536}};
  static_assert(!sn::fits<Square, SquareSetup>(tight));
  static_assert(sn::fits<Square, SquareSetup>(enough));
  static_assert(sn::host_fits(square.host, enough));
  // The host's bytes grow with the batch too: at 16 they fit 49,536 B; at 17 they do not
  // (slots 2 · 17 · 512 = 17,408 alone grow by 1,024).
  CHECK(sn::max_batch<Square, SquareSetup>(enough) == 16);
}
