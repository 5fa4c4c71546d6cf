// Unit tests of the compile-time core. Every expected number is derived by hand in the comment
// beside it, from the rules documented in layers.hpp, graph.hpp and plan.hpp.
#include <doctest/doctest.h>

#include <string_view>
#include <utility>
#include <vector>

#include <staticnet/fusion.hpp>
#include <staticnet/print.hpp>
#include <staticnet/staticnet.hpp>

namespace sn = staticnet;

namespace {

// A 3-layer MLP small enough to plan by hand. Input 4 features, batch 5.
using TinyMlp = sn::Sequential<sn::Linear<3>, sn::ReLU, sn::Linear<2>>;
using TinyTraining = sn::Training<sn::Input<sn::f32, 4>, sn::Batch<5>>;  // CrossEntropy, SGD

template <class M, class S>
constexpr std::int64_t total_bytes() {
  return sn::plan<M, S>().footprint.total().count;
}

}  // namespace

TEST_CASE("shapes: elements, sample and batched views") {
  constexpr sn::Shape s{128, 16, 32, 32};
  static_assert(s.rank == 4 && s.elements() == 128 * 16 * 32 * 32);
  static_assert(s.sample() == sn::Shape{16, 32, 32});
  static_assert(sn::Shape{16, 32, 32}.batched(128) == s);
  static_assert(sn::Shape{128, 10} != sn::Shape{128, 10, 1});
  CHECK(s.elements() == 2097152);
}

TEST_CASE("byte units are exact powers of two and compare as Bytes") {
  static_assert(sn::KiB(1).count == 1024);
  static_assert(sn::MiB(3).count == 3 * 1024 * 1024);
  static_assert(sn::GiB(2).count == 2147483648LL);
  static_assert(sn::MiB(1) + sn::KiB(1) == sn::Bytes{1049600});
  static_assert(sn::align_up(1) == 256 && sn::align_up(256) == 256 && sn::align_up(257) == 512);
  CHECK(sn::KiB(4) < sn::MiB(1));
}

TEST_CASE("counts print with thousands separators, bytes with a binary scale beside them") {
  CHECK(sn::grouped(0) == "0");
  CHECK(sn::grouped(512) == "512");
  CHECK(sn::grouped(1000) == "1,000");
  CHECK(sn::grouped(1843776) == "1,843,776");
  CHECK(sn::grouped(-1234567) == "-1,234,567");
  // 21,747,200 / 1,048,576 = 20.7397... MiB; 78,592 / 1,024 = 76.75 KiB.
  CHECK(sn::to_string(sn::Bytes{21747200}) == "21,747,200 B (20.74 MiB)");
  CHECK(sn::to_string(sn::Bytes{78592}) == "78,592 B (76.75 KiB)");
}

TEST_CASE("every named buffer role and dtype is counted, as the buffer table's readers expect") {
  // NAME_model.h's enums and the analyzer's reading of the probe list the values 0 to the count;
  // a value added past the last counted one would be missing there.
  for (int i = 0; i < 256; ++i) {
    CAPTURE(i);
    CHECK((std::string_view(sn::name_of(static_cast<sn::BufferRole>(i))) != "?") ==
          (i < sn::buffer_role_count));
    CHECK((std::string_view(sn::name_of(static_cast<sn::DType>(i))) != "?") ==
          (i < sn::dtype_count));
  }
}

TEST_CASE("layer options come in any order, with PyTorch's defaults") {
  constexpr auto a = sn::Conv2d<16, sn::Kernel<3>, sn::Padding<1>>::desc();
  constexpr auto b = sn::Conv2d<16, sn::Padding<1>, sn::Kernel<3>>::desc();
  static_assert(a.kernel_h == 3 && a.kernel_w == 3 && a.pad_h == 1 && a.pad_w == 1);
  static_assert(a.stride_h == 1 && a.stride_w == 1 && a.bias);  // defaults
  static_assert(b.kernel_h == a.kernel_h && b.pad_w == a.pad_w && b.stride_h == a.stride_h);
  constexpr auto rect = sn::Conv2d<8, sn::Stride<2, 1>, sn::Kernel<5, 3>, sn::NoBias>::desc();
  static_assert(rect.kernel_h == 5 && rect.kernel_w == 3 && rect.stride_h == 2 &&
                rect.stride_w == 1 && !rect.bias);
  constexpr auto pool = sn::MaxPool2d<2>::desc();
  static_assert(pool.stride_h == 2 && pool.stride_w == 2);  // stride defaults to the window
  constexpr auto pool3 = sn::AvgPool2d<3, sn::Stride<1>>::desc();
  static_assert(pool3.kernel_h == 3 && pool3.stride_h == 1);
  CHECK(a.option_problem == sn::OptionProblem::none);
  CHECK(sn::Conv2d<4, sn::Kernel<3>, sn::Kernel<5>>::desc().option_problem ==
        sn::OptionProblem::given_twice);
  CHECK(sn::Linear<4, sn::Stride<2>>::desc().option_problem == sn::OptionProblem::not_accepted);
  CHECK(sn::Conv2d<4>::desc().option_problem == sn::OptionProblem::missing);
}

TEST_CASE("setup options come in any order, with defaults") {
  constexpr auto s = sn::Training<sn::Optimizer<sn::Adam>, sn::Input<sn::f32, 3, 8, 8>>::desc();
  static_assert(s.batch == 1 && s.loss == sn::LossKind::CrossEntropy &&
                s.optimizer == sn::OptimizerKind::Adam && s.precision == sn::PrecisionKind::FP32);
  static_assert(s.input == sn::Shape{3, 8, 8} && s.mode == sn::Mode::training);
  constexpr auto i = sn::Inference<sn::Batch<7>, sn::Input<sn::f32, 10>>::desc();
  static_assert(i.mode == sn::Mode::inference && i.batch == 7);
  CHECK(sn::Training<sn::Batch<2>>::desc().problem == sn::SetupProblem::missing_input);
  CHECK(sn::Training<sn::Input<sn::f32, 1>, sn::Batch<2>, sn::Batch<3>>::desc().problem ==
        sn::SetupProblem::given_twice);
  CHECK(sn::Inference<sn::Input<sn::f32, 1>, sn::Loss<sn::MSE>>::desc().problem ==
        sn::SetupProblem::not_accepted);
}

TEST_CASE("nested Sequentials flatten in order") {
  using Nested = sn::Sequential<sn::Sequential<sn::Linear<4>, sn::ReLU>,
                                sn::Sequential<sn::Sequential<sn::Tanh>, sn::Linear<2>>>;
  constexpr auto layers = sn::flatten<Nested>();
  static_assert(layers.size() == 4);
  static_assert(layers[0].layer.kind == sn::LayerKind::Linear && layers[0].layer.out == 4);
  static_assert(layers[1].layer.kind == sn::LayerKind::ReLU &&
                layers[2].layer.kind == sn::LayerKind::Tanh);
  static_assert(layers[3].layer.kind == sn::LayerKind::Linear && layers[3].layer.out == 2);
  // A chain: each reads the one before, the first the model's input.
  static_assert(layers[0].inputs[0] == sn::model_input && layers[3].inputs[0] == 2);
  static_assert(layers[3].input_count() == 1);
  CHECK(sn::layer_count<Nested> == 4);
}

TEST_CASE("tiny MLP: shapes, parameters and FLOPs by hand") {
  constexpr auto& p = sn::plan<TinyMlp, TinyTraining>();
  static_assert(p.input_shape == sn::Shape{5, 4} && p.output_shape == sn::Shape{5, 2});
  // Linear 4->3: 12 + 3; Linear 3->2: 6 + 2.
  static_assert(p.parameter_count == 15 + 8);
  CHECK(p.layers[0].parameters == 15);
  CHECK(p.layers[0].weight_offset == 0);
  CHECK(p.layers[0].bias_offset == 12);
  CHECK(p.layers[2].weight_offset == 15);
  CHECK(p.layers[2].bias_offset == 21);
  // Linear 4->3, batch 5: 2·5·4·3 = 120 multiply-add FLOPs + 5·3 bias adds. It is first, so its
  // backward computes dW (120) and db (15) but no dx.
  CHECK(p.layers[0].forward_flops == 135);
  CHECK(p.layers[0].backward_flops == 135);
  // ReLU over 15 elements: 1 each way.
  CHECK(p.layers[1].forward_flops == 15);
  CHECK(p.layers[1].backward_flops == 15);
  // Linear 3->2: 2·5·3·2 = 60 + 10 bias; backward dW 60 + db 10 + dx 60.
  CHECK(p.layers[2].forward_flops == 70);
  CHECK(p.layers[2].backward_flops == 130);
}

TEST_CASE("tiny MLP: the training footprint, byte by byte") {
  constexpr auto& p = sn::plan<TinyMlp, TinyTraining>();
  // 23 f32 parameters = 92 B, one 256-byte slot; gradients the same; SGD keeps no state.
  CHECK(p.footprint.weights.count == 256);
  CHECK(p.footprint.gradients.count == 256);
  CHECK(p.footprint.optimizer_state.count == 0);
  // Inputs 5·4·4 = 80 B and labels 5·4 = 20 B, one slot each.
  CHECK(p.footprint.inputs.count == 512);
  CHECK(p.footprint.workspace.count == 0);
  // Steps: forward 0,1,2; loss 3; backward of layer 2 at 4, layer 1 at 5, layer 0 at 6;
  // update 7. Activation buffers (each ≤ 256 B, one slot): Linear0's output [0,5] (the ReLU
  // works in place; Linear2 and the ReLU's backward read it), the logits [2,3], the per-sample
  // loss [3,7], the predicted classes [3,7], d(logits) [3,4], Linear2's dx [4,6]. At steps 3
  // and 4 five are alive: 1280 B.
  CHECK(p.footprint.activations.count == 1280);
  CHECK(p.footprint.total().count == 256 + 256 + 512 + 1280);
  CHECK(p.layers[1].in_place);
  CHECK(p.layers[0].saved_bytes == 80);  // its input, the batch itself
  CHECK(p.layers[1].saved_bytes == 60);  // its output, 5·3 f32
  CHECK(p.layers[2].saved_bytes == 60);  // its input: the same storage as the ReLU's output
  CHECK(p.layers[2].input_buffer == p.layers[1].output_buffer);
  CHECK(p.step_count() == 8);
}

TEST_CASE("optimizer state is 0, 1 or 2 copies of the f32 parameters") {
  using Sgd = sn::Training<sn::Input<sn::f32, 4>, sn::Batch<5>, sn::Optimizer<sn::SGD>>;
  using Momentum =
      sn::Training<sn::Input<sn::f32, 4>, sn::Batch<5>, sn::Optimizer<sn::SGDMomentum>>;
  using Adam = sn::Training<sn::Input<sn::f32, 4>, sn::Batch<5>, sn::Optimizer<sn::Adam>>;
  using AdamW = sn::Training<sn::Input<sn::f32, 4>, sn::Batch<5>, sn::Optimizer<sn::AdamW>>;
  CHECK(sn::plan<TinyMlp, Sgd>().footprint.optimizer_state.count == 0);
  CHECK(sn::plan<TinyMlp, Momentum>().footprint.optimizer_state.count == 256);
  CHECK(sn::plan<TinyMlp, Adam>().footprint.optimizer_state.count == 512);
  CHECK(sn::plan<TinyMlp, AdamW>().footprint.optimizer_state.count == 512);
}

TEST_CASE("inference keeps nothing for backward") {
  using Run = sn::Inference<sn::Input<sn::f32, 4>, sn::Batch<5>>;
  constexpr auto& p = sn::plan<TinyMlp, Run>();
  // Weights 256; no gradients or optimizer state; inputs 80 B without labels; Linear0's output
  // [0,2] (ReLU in place, read by Linear2 at step 2) and the output [2,2]: 512 B.
  CHECK(p.footprint.weights.count == 256);
  CHECK(p.footprint.gradients.count == 0);
  CHECK(p.footprint.optimizer_state.count == 0);
  CHECK(p.footprint.inputs.count == 256);
  CHECK(p.footprint.activations.count == 512);
  CHECK(p.footprint.total().count == 1024);
  CHECK(p.step_count() == 3);
  for (const auto& l : p.layers)
    CHECK(l.saved_bytes == 0);
}

TEST_CASE("Conv2d: shape, parameters, FLOPs and im2col workspace by hand") {
  using Conv = sn::Sequential<sn::Conv2d<2, sn::Kernel<3>>, sn::Flatten, sn::Linear<3>>;
  using Setup = sn::Training<sn::Input<sn::f32, 1, 5, 5>, sn::Batch<1>>;
  constexpr auto& p = sn::plan<Conv, Setup>();
  // 5×5, kernel 3, no padding: 3×3 out; 2 channels -> 18 outputs, each 1·3·3 = 9 MACs.
  static_assert(p.layers[0].output_shape == sn::Shape{1, 2, 3, 3});
  CHECK(p.layers[0].parameters == 2 * 9 + 2);
  CHECK(p.layers[0].forward_flops == 2 * 18 * 9 + 18);
  CHECK(p.layers[0].backward_flops == 2 * 18 * 9 + 18);  // first layer: no dx
  // im2col of one sample: Cin·KH·KW = 9 rows × Ho·Wo = 9 columns of f32 = 324 B -> 512.
  CHECK(p.layers[0].workspace_bytes == 324);
  CHECK(p.footprint.workspace.count == 512);
  static_assert(p.layers[1].output_shape == sn::Shape{1, 18});
  CHECK(p.layers[1].in_place);  // Flatten is a view
  CHECK(p.layers[2].parameters == 18 * 3 + 3);
}

TEST_CASE("stride and padding follow PyTorch's output formula") {
  // floor((32 + 2·2 − 5) / 2) + 1 = 16; floor((20 + 0 − 3) / 3) + 1 = 6.
  using M = sn::Sequential<sn::Conv2d<8, sn::Kernel<5>, sn::Stride<2>, sn::Padding<2>>,
                           sn::MaxPool2d<3>, sn::AvgPool2d<2, sn::Stride<1>>>;
  using S = sn::Inference<sn::Input<sn::f32, 3, 32, 20>>;
  constexpr auto& p = sn::plan<M, S>();
  static_assert(p.layers[0].output_shape == sn::Shape{1, 8, 16, 10});
  // MaxPool 3 (stride 3): floor((16−3)/3)+1 = 5, floor((10−3)/3)+1 = 3.
  static_assert(p.layers[1].output_shape == sn::Shape{1, 8, 5, 3});
  // AvgPool 2 stride 1: 4 × 2.
  static_assert(p.output_shape == sn::Shape{1, 8, 4, 2});
  CHECK(p.layers[2].forward_flops == 8 * 4 * 2 * 4);
}

TEST_CASE("what each layer saves for backward") {
  using M = sn::Sequential<sn::Conv2d<4, sn::Kernel<3>, sn::Padding<1>>, sn::MaxPool2d<2>,
                           sn::Flatten, sn::Linear<8>, sn::Sigmoid, sn::ReLU, sn::Linear<3>>;
  using S = sn::Training<sn::Input<sn::f32, 1, 8, 8>, sn::Batch<2>>;
  constexpr auto& p = sn::plan<M, S>();
  CHECK(p.layers[0].saved_bytes == 2 * 64 * 4);     // the input batch
  CHECK(p.layers[1].saved_bytes == 2 * 4 * 4 * 4);  // a 1-byte window index per output
  CHECK(p.layers[2].saved_bytes == 0);              // Flatten: a view
  CHECK(p.layers[3].saved_bytes == 2 * 64 * 4);     // its input, the pool's output
  CHECK(p.layers[4].saved_bytes == 2 * 8 * 4);      // Sigmoid: its output
  CHECK(p.layers[4].in_place);   // Linear3 keeps its own input, so its output may be overwritten
  CHECK(!p.layers[5].in_place);  // the Sigmoid saves its output, so the ReLU may not overwrite it
  CHECK(p.layers[5].saved_bytes == 2 * 8 * 4);
  CHECK(p.layers[6].input_buffer == p.layers[5].output_buffer);
}

TEST_CASE("max-pool window indices widen for windows over 256 positions") {
  CHECK(sn::window_index_dtype(sn::MaxPool2d<16>::desc()) == sn::u8);   // 256 positions
  CHECK(sn::window_index_dtype(sn::MaxPool2d<17>::desc()) == sn::u16);  // 289
  // (A pool keeps its window index only when a layer before it trains.)
  using M = sn::Sequential<sn::Conv2d<1, sn::Kernel<1>>, sn::MaxPool2d<17>>;
  using S = sn::Training<sn::Input<sn::f32, 1, 17, 17>, sn::Batch<3>, sn::Loss<sn::MSE>>;
  constexpr auto& p = sn::plan<M, S>();
  REQUIRE(p.layers[1].window_index_buffer != sn::no_buffer);
  const sn::Buffer& w = p.buffers[static_cast<std::size_t>(p.layers[1].window_index_buffer)];
  CHECK(w.dtype == sn::u16);
  CHECK(w.size == 3 * 2);  // one 2-byte index per output element
  CHECK(w.elements() == 3);
}

TEST_CASE("layers before the first parameter run no backward") {
  using M = sn::Sequential<sn::ReLU, sn::Flatten, sn::Linear<2>>;
  using S = sn::Training<sn::Input<sn::f32, 1, 2, 2>, sn::Batch<1>>;
  constexpr auto& p = sn::plan<M, S>();
  CHECK(!p.layers[0].runs_backward);
  CHECK(p.layers[0].backward_flops == 0);
  CHECK(!p.layers[0].in_place);  // never in place over the batch itself
  CHECK(p.layers[2].runs_backward);
  CHECK(p.layers[2].input_gradient_buffer == sn::no_buffer);  // nobody needs d(input)
  CHECK(p.layers[2].backward_flops == 2 * 4 * 2 + 2);         // dW + db only
}

TEST_CASE("MSE targets are planned like the output") {
  using M = sn::Sequential<sn::Linear<2>>;
  using S = sn::Training<sn::Input<sn::f32, 10>, sn::Batch<100>, sn::Loss<sn::MSE>,
                         sn::Target<sn::f32, 2>>;
  constexpr auto& p = sn::plan<M, S>();
  // Inputs 100·10·4 = 4000 -> 4096; targets 100·2·4 = 800 -> 1024.
  CHECK(p.footprint.inputs.count == 4096 + 1024);
  bool has_targets = false;
  for (const auto& b : p.buffers)
    has_targets |= b.role == sn::BufferRole::targets;
  CHECK(has_targets);
}

TEST_CASE("Prefetch plans a second batch right after the first, in the inputs region") {
  // TinyMlp, batch 5, CrossEntropy: input 80 B in one 256-byte slot, labels 20 B. The next
  // batch mirrors that layout, 256 + 20 = 276 B, which occupies two slots: inputs 512 + 512.
  using Prefetching = sn::Training<sn::Input<sn::f32, 4>, sn::Batch<5>, sn::Prefetch>;
  static_assert(Prefetching::desc().prefetch && !TinyTraining::desc().prefetch);
  constexpr auto& p = sn::plan<TinyMlp, Prefetching>();
  CHECK(p.footprint.inputs.count == 512 + 512);
  CHECK(p.footprint.total().count == 2304 + 512);  // nothing else moves
  const auto role = [&](sn::BufferRole r) -> const sn::Buffer& {
    for (const auto& b : p.buffers)
      if (b.role == r)
        return b;
    FAIL("no such buffer");
    return p.buffers[0];
  };
  const sn::Buffer& input = role(sn::BufferRole::input);
  const sn::Buffer& next = role(sn::BufferRole::next_batch);
  CHECK(role(sn::BufferRole::labels).offset == input.offset + 256);
  CHECK(next.offset == input.offset + 512);
  CHECK(next.size == 276);
  CHECK(next.region() == sn::Region::inputs);
  // Alive for the whole step: it receives the batch after this one at any time.
  CHECK(next.first_step == 0);
  CHECK(next.last_step == p.step_count() - 1);

  // MSE, batch 100: input 4000 -> 4096, targets 800; the next batch 4896 -> 5120.
  using M = sn::Sequential<sn::Linear<2>>;
  using S = sn::Training<sn::Input<sn::f32, 10>, sn::Batch<100>, sn::Loss<sn::MSE>,
                         sn::Target<sn::f32, 2>, sn::Prefetch>;
  CHECK(sn::plan<M, S>().footprint.inputs.count == 4096 + 1024 + 5120);
  // Given twice, or to an Inference setup (whose program has no prefetching loop): refused.
  CHECK(sn::Training<sn::Input<sn::f32, 1>, sn::Prefetch, sn::Prefetch>::desc().problem ==
        sn::SetupProblem::given_twice);
  CHECK(sn::Inference<sn::Input<sn::f32, 1>, sn::Prefetch>::desc().problem ==
        sn::SetupProblem::not_accepted);
}

TEST_CASE("budgets: fits adds the device overhead") {
  // TinyMlp needs 2304 B (see above).
  static_assert(sn::fits<TinyMlp, TinyTraining>(sn::Device{sn::Bytes{2304}, sn::Bytes{0}}));
  static_assert(!sn::fits<TinyMlp, TinyTraining>(sn::Device{sn::Bytes{2303}, sn::Bytes{0}}));
  static_assert(!sn::fits<TinyMlp, TinyTraining>(sn::Device{sn::Bytes{2304}, sn::Bytes{1}}));
  static_assert(sn::assert_fits<TinyMlp, TinyTraining, sn::device::jetson_nano>());
  CHECK(sn::required_memory(sn::plan<TinyMlp, TinyTraining>(), sn::device::t4).count ==
        2304 + 512 * 1024 * 1024);
}

TEST_CASE("max_batch: the largest batch whose step fits, by hand") {
  // Linear 4->2, CrossEntropy, SGD. Parameters 10·4 B -> 256; gradients 256.
  // Batch B ≤ 16: input 16·B ≤ 256 B and labels 4·B: one slot each (512); logits, per-sample
  // loss, predicted classes and d(logits) are alive together at the loss step, one slot each
  // (1024): 2048 B. B = 17..32: the input needs two slots: 2304 B. B = 33..48: input ≤ 768 B
  // (three slots), labels 256, logits and d(logits) ≤ 384 B (two slots each), loss and
  // predictions one each: 3072 B. B = 49..64: the input takes a fourth slot: 3328 B.
  using M = sn::Sequential<sn::Linear<2>>;
  using S = sn::Training<sn::Input<sn::f32, 4>, sn::Batch<1>>;
  static_assert(total_bytes<M, S>() == 2048);
  static_assert(sn::max_batch<M, S>(sn::Bytes{2047}) == 0);
  static_assert(sn::max_batch<M, S>(sn::Bytes{2048}) == 16);
  static_assert(sn::max_batch<M, S>(sn::Bytes{2303}) == 16);
  static_assert(sn::max_batch<M, S>(sn::Bytes{2304}) == 32);
  static_assert(sn::max_batch<M, S>(sn::Device{sn::Bytes{2404}, sn::Bytes{100}}) == 32);
  CHECK(sn::max_batch<M, S>(sn::Bytes{3071}) == 32);
  CHECK(sn::max_batch<M, S>(sn::Bytes{3072}) == 48);
  CHECK(sn::max_batch<M, S>(sn::Bytes{3327}) == 48);
  CHECK(sn::max_batch<M, S>(sn::Bytes{3328}) == 64);
}

TEST_CASE("device profiles state their memory") {
  static_assert(sn::device::jetson_nano.memory == sn::GiB(4));
  static_assert(sn::device::h100_80gb.memory == sn::MiB(81559));
  // Measured with the CUDA trainer: nvidia-smi's total less cudaMemGetInfo's (H100 81559 - 81079
  // MiB; H200 143771 - 150,109,880,320 B), context 526.8 MiB, libraries at most 16 MiB, 2 MiB of
  // modules loaded later; budgeted as the next multiple of 64 MiB.
  static_assert(sn::device::h100_80gb.overhead == sn::MiB(1088));
  static_assert(sn::device::h100_80gb.overhead.count >=
                (81559LL - 81079) * 1024 * 1024 + (5268LL + 160 + 20) * 1024 * 1024 / 10);
  static_assert(sn::device::h200_141gb.memory == sn::MiB(143771));
  static_assert(sn::device::h200_141gb.overhead == sn::MiB(1216));
  static_assert(sn::device::h200_141gb.overhead.count >=
                143771LL * 1024 * 1024 - 150'109'880'320LL +
                    (5268LL + 160 + 20) * 1024 * 1024 / 10);
  static_assert(sn::device::a100_40gb.available() ==
                sn::MiB(40960) - sn::device::discrete_gpu_overhead);
  constexpr sn::Device mine{sn::GiB(2), sn::MiB(300)};
  CHECK(mine.available() == sn::MiB(2048 - 300));
}

TEST_CASE("value-level lowering reports the first problem with its numbers") {
  std::array<sn::LayerDesc, 2> layers{sn::LayerDesc::of(sn::LayerKind::Flatten),
                                      sn::LayerDesc::of(sn::LayerKind::Linear, 10)};
  layers[1].in_features = 100;
  sn::SetupDesc setup;
  setup.input = sn::Shape{3, 8, 8};
  setup.batch = 4;
  const auto g = sn::lower(layers, setup);
  CHECK(g.error.code == sn::ErrorCode::linear_in_features_mismatch);
  CHECK(g.error.layer == 1);
  CHECK(g.error.a == 100);
  CHECK(g.error.b == 192);
  const auto p = sn::plan(g);
  CHECK(p.buffers.size() == 0);  // an erroneous graph plans to nothing
}

TEST_CASE("optimizer names parse back to their kinds, and regions have names") {
  for (sn::OptimizerKind o : sn::optimizer_kinds) {
    sn::OptimizerKind parsed{};
    CHECK(sn::parse_optimizer(sn::name_of(o), parsed));
    CHECK(parsed == o);
  }
  sn::OptimizerKind unchanged = sn::OptimizerKind::Adam;
  CHECK_FALSE(sn::parse_optimizer("Adagrad", unchanged));
  CHECK_FALSE(sn::parse_optimizer("adam", unchanged));
  CHECK(unchanged == sn::OptimizerKind::Adam);
  CHECK(std::string(sn::name_of(sn::Region::optimizer_state)) == "optimizer_state");
  CHECK(std::string(sn::name_of(sn::Region::activations)) == "activations");
}

// The schedule names what each step reads and writes, worked out by hand for a two-layer MLP:
// buffers 0 parameters, 1 gradients, 2 input, 3 labels (persistent), then 4 the first Linear's
// output (the ReLU runs in place over it), 5 the logits, 6 losses, 7 predictions, 8 d(logits),
// 9 d(ReLU output), written by the second Linear's backward, which the ReLU's backward overwrites
// in place with d(first Linear's output).
TEST_CASE("the schedule's reads and writes, and the lifetimes they give") {
  using M = sn::Sequential<sn::Linear<3>, sn::ReLU, sn::Linear<2>>;
  using S = sn::Training<sn::Input<sn::f32, 4>, sn::Batch<2>, sn::Optimizer<sn::SGD>>;
  constexpr auto& p = sn::plan<M, S>();
  using K = sn::AccessKind;
  using A = sn::Access;
  const std::vector<std::vector<A>> expected = {
      {{2, 0, K::read}, {4, 0, K::write}},  // forward Linear
      {{4, 1, K::update}},                  // forward ReLU, in place
      {{4, 1, K::read}, {5, 0, K::write}},  // forward Linear
      {{5, 0, K::read},
       {3, 0, K::read},
       {6, 0, K::write},  // loss
       {7, 0, K::write},
       {8, 0, K::write}},
      {{8, 0, K::read}, {4, 1, K::read}, {9, 0, K::write}},  // backward Linear: dy, x, dx
      {{4, 1, K::read}, {9, 1, K::update}},                  // backward ReLU: y, dx over dy
      {{9, 1, K::read}, {2, 0, K::read}},                    // backward Linear: no dx
      {},                                                    // update: parameters, gradients
  };
  REQUIRE(p.step_count() == static_cast<std::int64_t>(expected.size()));
  for (std::int64_t s = 0; s < p.step_count(); ++s) {
    CAPTURE(s);
    std::vector<A> got;
    for (std::int64_t a = p.first_access(s); a < p.end_access(s); ++a)
      got.push_back(p.access(a));
    CHECK(got == expected[static_cast<std::size_t>(s)]);
  }
  const std::int64_t lifetimes[][3] = {{4, 0, 5}, {5, 2, 3}, {6, 3, 7},
                                       {7, 3, 7}, {8, 3, 4}, {9, 4, 6}};
  for (const auto& lifetime : lifetimes) {
    const std::int64_t buffer = lifetime[0];
    CAPTURE(buffer);
    CHECK(p.buffers[static_cast<std::size_t>(buffer)].first_step == lifetime[1]);
    CHECK(p.buffers[static_cast<std::size_t>(buffer)].last_step == lifetime[2]);
  }
  CHECK(p.buffers[7].dtype == sn::i32);  // predicted classes
  CHECK(p.buffers[7].size == 2 * 4);
}

// The fusion stage's groups (fusion.hpp), worked out from its rules. SimpleCNN: the convolution,
// its ReLU and its 2x2 pool (which tiles its 32x32 input) are one pass; the Flatten a view; the
// Linear alone. A stride-2 'same' convolution of an even input pads one more row and column after
// than before: the CPU fuses its ReLU into it, CUDA runs it directly (cuDNN's graphs take even
// padding only) and the ReLU as a pass of its own.
TEST_CASE("fusion groups the layers that run as one pass, per backend") {
  auto spans = [](const auto& plan, sn::FusionTarget target) {
    std::vector<std::pair<std::int64_t, std::int64_t>> out;
    std::vector<sn::FusedGroup> groups;
    sn::fuse(plan, target, groups);
    for (const sn::FusedGroup& g : groups)
      out.emplace_back(g.first, g.last);
    return out;
  };
  using Pairs = std::vector<std::pair<std::int64_t, std::int64_t>>;
  using Cnn = sn::Sequential<sn::Conv2d<16, sn::Kernel<3>, sn::Padding<1>>, sn::ReLU,
                             sn::MaxPool2d<2>, sn::Flatten, sn::Linear<10>>;
  using CnnSetup = sn::Training<sn::Input<sn::f32, 3, 32, 32>, sn::Batch<4>>;
  constexpr auto& cnn = sn::plan<Cnn, CnnSetup>();
  CHECK(spans(cnn, sn::FusionTarget::cpu) == Pairs{{0, 2}, {3, 3}, {4, 4}});
  CHECK(spans(cnn, sn::FusionTarget::cuda) == Pairs{{0, 2}, {3, 3}, {4, 4}});

  using Uneven = sn::Sequential<sn::Conv2d<4, sn::Kernel<3>, sn::Stride<2>, sn::PaddingSame>,
                                sn::ReLU, sn::Flatten, sn::Linear<2>>;
  using UnevenSetup = sn::Training<sn::Input<sn::f32, 1, 8, 8>, sn::Batch<2>>;
  constexpr auto& uneven = sn::plan<Uneven, UnevenSetup>();
  static_assert(!uneven.layers[0].options.symmetric_padding());  // 0 before, 1 after
  CHECK(spans(uneven, sn::FusionTarget::cpu) == Pairs{{0, 1}, {2, 2}, {3, 3}});
  CHECK(spans(uneven, sn::FusionTarget::cuda) == Pairs{{0, 0}, {1, 1}, {2, 2}, {3, 3}});
}
