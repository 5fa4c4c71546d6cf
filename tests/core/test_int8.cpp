// The plan of int8 inference (TensorFlow Lite's scheme, issue 40) and its two budgets on a
// microcontroller: the weights and per-channel numbers in flash, the input and the activations in
// SRAM. Every expected number is derived by hand in the comment beside it, from setup.hpp
// (precision_dtypes), plan.hpp (quantized_parameters: per output channel an int32 bias,
// multiplier and shift) and budget.hpp; under Int8 every buffer occupies its bytes rounded up to
// 16, as TensorFlow Lite Micro aligns its arena's.
#include <doctest/doctest.h>

#include <cstdint>

#include <staticnet/staticnet.hpp>

namespace sn = staticnet;

namespace {

using Int8 = sn::Int8;

// The digits CNN's shape: an 8×8 grey image, a 3×3 convolution to 16 channels with BatchNorm,
// ReLU and a 2×2 max-pool, then a Linear to 10 classes.
using DigitsCnn = sn::Sequential<sn::Conv2d<16, sn::Kernel<3>, sn::Padding<1>>, sn::BatchNorm2d<>,
                                 sn::ReLU, sn::MaxPool2d<2>, sn::Flatten, sn::Linear<10>>;
using DigitsInt8 = sn::Inference<sn::Input<sn::f32, 1, 8, 8>, sn::Precision<Int8>>;

template <std::size_t L>
constexpr int count_role(const sn::Plan<L>& p, sn::BufferRole role) {
  int n = 0;
  for (const sn::Buffer& b : p.buffers)
    n += b.role == role;
  return n;
}

// Flash: the convolution's 16·1·3·3 = 144 int8 weights and the Linear's 10·16·4·4 = 2,560:
// 2,704 B (a multiple of 16); per output channel three int32 numbers, 3·(16 + 10) = 78 of them,
// 312 B → 320. The BatchNorm folds into the convolution: its γ, β and running statistics are in
// the convolution's weights and biases, and nothing of its own is kept. Weights: 3,024.
// SRAM: everything is one shared region, the input too: 64 int8 = 64 B, read by the convolution,
// which writes 16·8·8 = 1,024 B (1,088 live); the folded BatchNorm and the ReLU run over it in
// place; the pool writes 16·4·4 = 256 while reading it: 1,280, the peak, by when the input's bytes
// are free; Flatten is a view; the Linear's 10 B (→ 16) reuse the convolution's bytes.
TEST_CASE("int8: the digits CNN's flash and SRAM, to the byte") {
  constexpr auto& p = sn::plan<DigitsCnn, DigitsInt8>();
  static_assert(p.footprint.weights.count == 3'024);
  static_assert(p.footprint.non_trainable.count == 0);
  static_assert(p.footprint.inputs.count == 0);
  static_assert(p.footprint.workspace.count == 0);
  static_assert(p.footprint.activations.count == 1'280);
  static_assert(p.footprint.gradients.count == 0 && p.footprint.optimizer_state.count == 0);
  static_assert(p.footprint.total().count == 3'024 + 1'280);

  CHECK(count_role(p, sn::BufferRole::parameters) == 1);
  CHECK(count_role(p, sn::BufferRole::quantization) == 1);
  CHECK(count_role(p, sn::BufferRole::non_trainable) == 0);
  CHECK(count_role(p, sn::BufferRole::input) == 0);
  CHECK(count_role(p, sn::BufferRole::arena_input) == 1);
  for (const sn::Buffer& b : p.buffers) {
    if (b.role == sn::BufferRole::quantization) {
      CHECK(b.dtype == sn::i32);
      CHECK(b.size == 312);
      CHECK(b.occupied() == 320);
    } else {
      CHECK(b.dtype == sn::i8);  // the weights, the input and every activation
    }
    CHECK(b.offset % 16 == 0);
  }
  // Offsets into the two vectors: the convolution's weights first, the Linear's after its 144;
  // the convolution's 16 channels' numbers (48) before the Linear's.
  CHECK(p.layers[0].weight_offset == 0);
  CHECK(p.layers[0].bias_offset == 0);
  CHECK(p.layers[5].weight_offset == 144);
  CHECK(p.layers[5].bias_offset == 48);
  CHECK(p.layers[1].folded);
  CHECK(p.output_shape == sn::Shape{1, 10});
}

// A residual block as ResNet-8 has them, on a 4×8×8 input, batch 1:
//   0 Conv2d<4, 3×3>  1 BatchNorm (folds)  2 ReLU  3 Conv2d<4, 3×3>  4 BatchNorm (folds)
//   5 Add (body + the identity)  6 ReLU  7 GlobalAvgPool2d  8 Flatten  9 Linear<3>
// Flash: 4·4·9 = 144 weights twice and 3·4 = 12: 300 B → 304; channel numbers 3·(4 + 4 + 3) =
// 33 int32, 132 B → 144. Weights: 448.
// SRAM, one shared region: the input 4·8·8 = 256 B, which the Add reads at step 5; layer 0's
// output, 256 B, until layer 3 reads it; layer 3's, 256 B, which the BatchNorm, the Add and the
// ReLU update in place, until the pool reads it at step 7: all three live at step 3, 768 B, the
// peak. The pool's 4 B → 16 and the Linear's 3 B → 16 fit in freed bytes.
using Block =
    sn::Sequential<sn::Conv2d<4, sn::Kernel<3>, sn::Padding<1>>, sn::BatchNorm2d<>, sn::ReLU,
                   sn::Conv2d<4, sn::Kernel<3>, sn::Padding<1>>, sn::BatchNorm2d<>>;
using ResidualNet =
    sn::Sequential<sn::Residual<Block>, sn::ReLU, sn::GlobalAvgPool2d, sn::Flatten, sn::Linear<3>>;
using ResidualInt8 = sn::Inference<sn::Input<sn::f32, 4, 8, 8>, sn::Precision<Int8>>;

TEST_CASE("int8: a residual block folds both BatchNorms and adds in place") {
  constexpr auto& p = sn::plan<ResidualNet, ResidualInt8>();
  static_assert(p.footprint.weights.count == 448);
  static_assert(p.footprint.inputs.count == 0);
  static_assert(p.footprint.activations.count == 768);
  static_assert(p.footprint.total().count == 448 + 768);
  CHECK(p.layers[1].folded);
  CHECK(p.layers[4].folded);
  CHECK(p.layers[5].kind == sn::LayerKind::Add);
  CHECK(p.layers[5].in_place);
  CHECK(p.layers[9].weight_offset == 288);
  CHECK(p.layers[9].bias_offset == 24);
}

// The input is a tensor of the shared region, so a layer may run in place over it, but not before
// its last reader: here the body's first layer, a ReLU, reads the input, and so does the Add (the
// identity shortcut) two layers later.
//   0 ReLU  1 Conv2d<4, 3×3, pad 1>  2 Add (1's output + the input)  3 Flatten  4 Linear<2>
// SRAM: the input 4·8·8 = 256 B until step 2; the ReLU's own output, 256 B, until the conv reads
// it; the conv's, 256 B, which the Add updates in place and the Linear reads at step 4: all three
// live at step 1, 768 B, the peak; the Linear's 2 B → 16 in freed bytes.
using ReluFirst = sn::Sequential<
    sn::Residual<sn::Sequential<sn::ReLU, sn::Conv2d<4, sn::Kernel<3>, sn::Padding<1>>>>,
    sn::Flatten, sn::Linear<2>>;

TEST_CASE("int8: no layer writes over the input before its last reader") {
  constexpr auto& p = sn::plan<ReluFirst, ResidualInt8>();
  const sn::Buffer& input = p.buffers[static_cast<std::size_t>(p.layers[0].input_buffer)];
  CHECK(input.role == sn::BufferRole::arena_input);
  CHECK_FALSE(p.layers[0].in_place);
  CHECK(p.layers[2].input2_buffer == p.layers[0].input_buffer);
  CHECK(input.last_step == 2);
  static_assert(p.footprint.activations.count == 768);
}

// The same network in FP32 inference keeps 256-byte slots and f32 everything: the int8 plan is a
// precision of the same planner, not another planner.
TEST_CASE("int8: FP32 inference of the same model is unchanged") {
  using Fp32 = sn::Inference<sn::Input<sn::f32, 1, 8, 8>>;
  constexpr auto& p = sn::plan<DigitsCnn, Fp32>();
  // Parameters: the convolution's 144 + 16, the BatchNorm's 16 + 16, the Linear's 2,560 + 10:
  // 2,762 f32 = 11,048 B → 11,264; the running statistics 32 f32 = 128 B → 256.
  static_assert(p.footprint.weights.count == 11'264);
  static_assert(p.footprint.non_trainable.count == 256);
  for (const sn::Buffer& b : p.buffers)
    CHECK(b.offset % 256 == 0);
}

// ---- two budgets ----------------------------------------------------------------------------

// On the nRF52840 (256 KiB SRAM, 1 MiB flash; 16 KiB and 64 KiB for the firmware): SRAM needs
// 1,280 + 16,384 = 17,664 B, flash 3,024 + 65,536 = 68,560 B.
TEST_CASE("int8: SRAM and flash are counted apart on a microcontroller") {
  constexpr auto& p = sn::plan<DigitsCnn, DigitsInt8>();
  static_assert(sn::required_memory(p, sn::device::nrf52840) == sn::Bytes{17'664});
  static_assert(sn::required_flash(p, sn::device::nrf52840) == sn::Bytes{68'560});
  static_assert(sn::fits<DigitsCnn, DigitsInt8>(sn::device::nrf52840));
  static_assert(sn::assert_fits<DigitsCnn, DigitsInt8, sn::device::stm32h743>());
  // Elsewhere the weights are memory like the rest, and nothing is flash.
  static_assert(sn::required_memory(p, sn::device::jetson_nano) ==
                p.footprint.total() + sn::device::jetson_nano.overhead);
  static_assert(sn::required_flash(p, sn::device::jetson_nano) == sn::Bytes{});

  // 17,664 B of SRAM fit in 17,664 and not in 17,663; flash the same at 68,560.
  constexpr sn::Device exact{sn::Bytes{17'664}, sn::KiB(16), "exact", sn::Bytes{68'560},
                             sn::KiB(64)};
  static_assert(sn::fits<DigitsCnn, DigitsInt8>(exact));
  constexpr sn::Device sram_short{sn::Bytes{17'663}, sn::KiB(16), "", sn::Bytes{68'560},
                                  sn::KiB(64)};
  static_assert(!sn::fits<DigitsCnn, DigitsInt8>(sram_short));
  constexpr sn::Device flash_short{sn::Bytes{17'664}, sn::KiB(16), "", sn::Bytes{68'559},
                                   sn::KiB(64)};
  static_assert(!sn::fits<DigitsCnn, DigitsInt8>(flash_short));
}

// A training step on a microcontroller keeps its weights in SRAM: they change every step.
TEST_CASE("int8: a training plan counts all of itself as SRAM, even where there is flash") {
  using Training = sn::Training<sn::Input<sn::f32, 1, 8, 8>>;
  constexpr auto& p = sn::plan<DigitsCnn, Training>();
  static_assert(sn::required_memory(p, sn::device::nrf52840) ==
                p.footprint.total() + sn::device::mcu_overhead);
  static_assert(sn::required_flash(p, sn::device::nrf52840) == sn::device::mcu_flash_overhead);
}

// The largest batch in the nRF52840's SRAM: a batch of b peaks at the pool, 1,280·b (the input's
// 64·b are free by then; each a multiple of 16, so no rounding), with 16,384 B for the firmware:
// 1,280·b <= 262,144 − 16,384 = 245,760, b <= 192. The flash does not grow with b.
TEST_CASE("int8: max_batch on a microcontroller counts only SRAM") {
  static_assert(sn::max_batch<DigitsCnn, DigitsInt8>(sn::device::nrf52840) == 192);
  // Weights that do not fit the flash leave no batch at all.
  constexpr sn::Device tiny_flash{sn::KiB(256), sn::KiB(16), "", sn::KiB(64), sn::KiB(64)};
  static_assert(sn::max_batch<DigitsCnn, DigitsInt8>(tiny_flash) == 0);
}

}  // namespace
