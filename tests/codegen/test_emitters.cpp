// The generator's parts: the Printer, the fusion rules (which layers run as one pass, and when a
// fusion would break the plan's placement), the names emitted code uses, and what it refuses.
#include <doctest/doctest.h>

#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include <staticnet/codegen/emitters.hpp>
#include <staticnet/codegen/fusion.hpp>
#include <staticnet/codegen/generate.hpp>
#include <staticnet/codegen/naming.hpp>
#include <staticnet/codegen/printer.hpp>

#include "gradient_models.hpp"
#include "samples/lenet5.hpp"
#include "samples/mlperf_tiny/resnet8.hpp"
#include "samples/simple_cnn.hpp"

namespace sn = staticnet;
namespace cg = staticnet::codegen;
namespace gm = gradient_models;

namespace {

template <class M, class S>
cg::ModelView view_of(const char* name = "m") {
  return cg::describe(sn::plan<M, S>(), {name, "m.hpp", "M", "S"});
}

std::string spans(const std::vector<cg::FusedGroup>& groups) {
  std::string text;
  for (const cg::FusedGroup& g : groups)
    text += "[" + std::to_string(g.first) + "-" + std::to_string(g.last) + "]";
  return text;
}

}  // namespace

TEST_CASE("printer: substitutes, strips the template's indentation, indents multi-line values") {
  cg::Printer p;
  p.emit({{"name", "f"}, {"body", "a();\nb();"}}, R"(
    void $name$() {  // costs $$0
      $body$
    }
  )");
  p.indent();
  p.line("x;");
  p.outdent();
  CHECK(p.text() == "void f() {  // costs $0\n  a();\n  b();\n}\n  x;\n");
  CHECK_THROWS_WITH_AS(p.emit("$missing$"), "Printer: no value for $missing$", std::logic_error);
  CHECK_THROWS_AS(p.outdent(), std::logic_error);
}

TEST_CASE("fusion: LeNet-5 runs as six groups") {
  // conv + tanh + avg-pool (tiles 28×28 by 2), twice; Flatten; Linear + Tanh twice; Linear.
  CHECK(spans(cg::fuse(view_of<sn::samples::LeNet5, sn::samples::LeNet5Training>(),
                       cg::Target::cpu)) == "[0-2][3-5][6-6][7-8][9-10][11-11]");
}

TEST_CASE("fusion: overlapping and padded pools run alone, as does an activation out of place") {
  CHECK(spans(cg::fuse(view_of<gm::StandalonePools, gm::StandalonePoolsSetup>(),
                       cg::Target::cpu)) == "[0-0][1-1][2-2][3-3][4-4][5-5]");
  // The Sigmoid runs in place over the Linear; the ReLU after it cannot (the Sigmoid saves it).
  CHECK(spans(cg::fuse(view_of<gm::ChainedActivations, gm::ChainedActivationsSetup>(),
                       cg::Target::cpu)) == "[0-1][2-2][3-3]");
}

TEST_CASE("fusion: a pool is not fused when its early writes would hit a buffer still alive") {
  cg::ModelView model = view_of<sn::samples::SimpleCNN, sn::samples::SimpleCNNTraining>();
  CHECK(spans(cg::fuse(model, cg::Target::cpu)) == "[0-2][3-3][4-4]");
  // A buffer alive at steps 0-1 only, in the pooled output's bytes: writing the pool's output at
  // step 0 (fused) instead of step 2 would destroy it, so the pool must run alone.
  const sn::LayerPlan& pool = model.layers[2];
  sn::Buffer squatter = model.buffer(pool.output_buffer);
  squatter.first_step = 0;
  squatter.last_step = 1;
  model.buffers.push_back(squatter);
  CHECK(spans(cg::fuse(model, cg::Target::cpu)) == "[0-1][2-2][3-3][4-4]");
}

TEST_CASE("fusion: ResNet-8 fuses BatchNorm and the residual sum with the ReLU after them") {
  const auto model = view_of<sn::samples::ResNet8, sn::samples::ResNet8Training>();
  // Conv; BN+ReLU; per block: conv, BN+ReLU, conv, BN (read by the Add, not an activation),
  // [the shortcut conv], Add+ReLU; then the global pool and the Linear. Fusion follows tensor
  // ids: layer 7's successor in the list (8, the Add) reads it, layer 14's (15) does not.
  CHECK(spans(cg::fuse(model, cg::Target::cpu)) ==
        "[0-0][1-2][3-3][4-5][6-6][7-7][8-9][10-10][11-12][13-13][14-14][15-15][16-17][18-18]"
        "[19-20][21-21][22-22][23-23][24-25][26-26][27-27]");
  // On CUDA the same groups, but three convolutions run directly, not on cuDNN: layer 3, whose
  // input gradient adds to the Add's (layer 2's output has two readers, and the Add's backward
  // runs first), and layers 10 and 18 (3×3 stride 2 'same' on an even input pads 0 before and 1
  // after).
  const std::vector<cg::FusedGroup> cuda = cg::fuse(model, cg::Target::cuda);
  CHECK(spans(cuda) == spans(cg::fuse(model, cg::Target::cpu)));
  std::vector<std::int64_t> direct;
  for (const cg::FusedGroup& g : cuda)
    if (g.grouped >= 0)
      direct.push_back(g.grouped);
  CHECK(direct == std::vector<std::int64_t>{3, 10, 18});
  // The emitted step runs them on the shared direct bodies, one thread per element, and the sums
  // over the batch one block per result: ResNet-8's first BatchNorm has 16 channels; layer 3's
  // weight, 16 · 16 · 3 · 3 = 2,304 elements.
  const std::vector<cg::EmittedFile> files = cg::emit_cuda_backend(model);
  const std::string& step = files.at(1).text;
  CHECK(step.find("k::grouped_conv_forward<conv_10, true>(i, x, weight, bias, y);") !=
        std::string::npos);
  CHECK(step.find("k::grouped_conv_backward_input<conv_3, true>(i, dy, weight, dx);") !=
        std::string::npos);
  CHECK(step.find("g::per_block::batch_norm_statistics<norm_1>(c, x, stats, running);") !=
        std::string::npos);
  CHECK(step.find("g::for_each_block<16>(stream, \"forward_layers_1_2 (pass 1)\"") !=
        std::string::npos);
  CHECK(step.find("g::per_block::batch_norm_backward_sums<norm_1, k::ReLU>(c, x, y, stats, dy, "
                  "dgamma, dbeta);") != std::string::npos);
  CHECK(step.find("g::per_block::grouped_conv_backward_weight<conv_3>(e, x, dy, dweight);") !=
        std::string::npos);
  CHECK(step.find("g::for_each_block<2'304>(stream, \"backward_layer_3 (pass 1)\"") !=
        std::string::npos);
  CHECK(step.find("one thread per channel") == std::string::npos);
  CHECK(step.find("One thread per channel") == std::string::npos);
  CHECK(step.find(",  // gradient of 1.weight (γ)\n") != std::string::npos);  // BatchNorm 1's
  CHECK(step.find("// gradient of // ") == std::string::npos);
  CHECK(step.find("forward_layers_1_2(arena, lib, stream, training);") != std::string::npos);
  // The kernels take their tensors as __restrict__ arguments. A residual sum in place writes its
  // first input's buffer, so those two go without the promise (g::aliased), its second with it.
  CHECK(step.find("}, g::aliased(a), b, g::aliased(y));") != std::string::npos);
  // BatchNorm 1's saved output and its input gradient share a buffer (4,333,824), but no one pass
  // touches both: the sums read y, the next pass writes dx. Each keeps its promise.
  CHECK(step.find("}, x, stats, dy, dgamma, dbeta, y);") != std::string::npos);
  CHECK(step.find("}, x, stats, gamma, dy, dgamma, dbeta, dx);") != std::string::npos);
  CHECK(step.find("void forward_layer_3(const float* __restrict__ x, const float* __restrict__ "
                  "weight, const float* __restrict__ bias, float* __restrict__ y, cudaStream_t "
                  "stream) {") != std::string::npos);
}

TEST_CASE("naming: layers are described the way PyTorch users read them") {
  const auto lenet = view_of<sn::samples::LeNet5, sn::samples::LeNet5Training>();
  CHECK(cg::describe_layer(lenet.layers[0]) == "Conv2d(1 → 6, 5×5, pad 2)");
  CHECK(cg::describe_layer(lenet.layers[2]) == "AvgPool2d(2×2)");
  CHECK(cg::describe_layer(lenet.layers[7]) == "Linear(400 → 120)");
  const auto pools = view_of<gm::StandalonePools, gm::StandalonePoolsSetup>();
  CHECK(cg::describe_layer(pools.layers[0]) == "Conv2d(1 → 2, 3×2, pad 1×0)");
  CHECK(cg::describe_layer(pools.layers[1]) == "MaxPool2d(3×3, stride 2)");
  CHECK(cg::literal(21747200) == "21'747'200");
}

TEST_CASE("emitters: an Inference setup gives the CPU forward pass, and needs a parameter") {
  using Net = sn::Sequential<sn::Conv2d<4, sn::Kernel<3>>, sn::BatchNorm2d<>, sn::ReLU, sn::Flatten,
                             sn::Linear<4>>;
  using Infer = sn::Inference<sn::Input<sn::f32, 1, 8, 8>, sn::Batch<2>>;
  const std::vector<cg::EmittedFile> files = cg::emit_cpu_backend(view_of<Net, Infer>());
  REQUIRE(files.size() == 3);
  CHECK(files[0].name == "m_kernels_cpu.h");
  CHECK(files[2].name == "m_infer_cpu.cpp");
  const std::string& source = files[1].text;
  // Conv + BN + ReLU is one group, its bias the BatchNorm's β holding the folded shift.
  CHECK(spans(cg::fuse(view_of<Net, Infer>(), cg::Target::cpu)) == "[0-2][3-3][4-4]");
  CHECK(source.find("void forward_layers_0_2(") != std::string::npos);
  CHECK(source.find("1.bias, holding the folded shift") != std::string::npos);
  CHECK(source.find("k::fold_batch_norm<norm_1, 9>") != std::string::npos);  // 1·3·3 per channel
  CHECK(source.find("void infer(std::byte* arena") != std::string::npos);
  CHECK(source.find("backward") == std::string::npos);
  // The CUDA backend: the same groups; cuDNN adds the shift and the ReLU (the conv's epilogue),
  // the fold runs one thread per output channel, and no backward is set up or emitted.
  const std::vector<cg::EmittedFile> cuda = cg::emit_cuda_backend(view_of<Net, Infer>());
  REQUIRE(cuda.size() == 3);
  CHECK(cuda[0].name == "m_kernels_cuda.h");
  CHECK(cuda[0].text.find("make_inference(std::byte* arena") != std::string::npos);
  CHECK(cuda[1].name == "m_kernels.cu");
  CHECK(cuda[2].name == "m_infer_cuda.cpp");
  const std::string& cu = cuda[1].text;
  CHECK(cu.find("void forward_layers_0_2(") != std::string::npos);
  CHECK(cu.find("g::ConvEpilogue::bias_relu, g::Gradients::none") != std::string::npos);
  CHECK(cu.find("g::LinearEpilogue::bias, g::Gradients::none") != std::string::npos);
  CHECK(cu.find("1.bias, holding the folded shift") != std::string::npos);
  CHECK(cu.find("k::fold_batch_norm<norm_1, 9>(ch, weight, bias, gamma, beta, running);") !=
        std::string::npos);
  CHECK(cu.find("g::for_each<4>(stream, \"fold_layers_0_2\"") != std::string::npos);  // 4 channels
  CHECK(cu.find("backward") == std::string::npos);
  CHECK(cu.find("optimizer_constants") == std::string::npos);
  using Nothing = sn::Sequential<sn::Flatten>;
  using Train = sn::Training<sn::Input<sn::f32, 8>, sn::Batch<2>, sn::Loss<sn::MSE>>;
  CHECK_THROWS_WITH_AS(cg::emit_cpu_backend(view_of<Nothing, Train>()),
                       "M has no parameters: there is nothing to train", std::invalid_argument);
  CHECK_THROWS_WITH_AS(
      cg::emit_cpu_backend(view_of<Nothing, sn::Inference<sn::Input<sn::f32, 8>, sn::Batch<2>>>()),
      "M has no parameters: there is nothing to load", std::invalid_argument);
}

TEST_CASE("emitters: cuBLASLt is told the alignment the plan gives each Linear's tensors") {
  // gm::Mlp packs its parameters in order: 6→5 weight (30 floats) and bias (5), then the 5→4
  // weight at 35 floats = 140 bytes, 4 modulo 16, and the 4→3 weight at 35 + 20 + 4 = 59 floats
  // = 236 bytes, also 4 modulo 16. Untold, cuBLASLt assumes 256-byte-aligned matrices.
  // The biases, which the BIAS epilogue reads and BGRADB writes, are told apart: 6→5's at 30
  // floats = 120 bytes (8 modulo 16), 5→4's at 55 floats = 220 bytes and 4→3's at 71 floats =
  // 284 bytes (both 12 modulo 16, so 4). The gradient region starts on a 256-byte boundary, so
  // each bias gradient has its bias's alignment.
  const auto model = view_of<gm::Mlp, gm::MlpSetup>();
  const std::vector<cg::EmittedFile> files = cg::emit_cuda_backend(model);
  const std::string& step = files.at(1).text;
  const std::size_t first = step.find("linear_0(handles, {.batch = 4, .in_features = 6, ");
  REQUIRE(first != std::string::npos);
  CHECK(step.substr(first, step.find('\n', first) - first).ends_with("/*bias_alignment=*/8),"));
  CHECK(step.find("linear_2(handles, {.batch = 4, .in_features = 5, .out_features = 4}, "
                  "g::LinearEpilogue::none, g::Gradients::weights_and_input, "
                  "/*bias_gradient=*/true, 0, /*alignment=*/4, /*bias_alignment=*/4)") !=
        std::string::npos);
  CHECK(step.find("linear_4(handles, {.batch = 4, .in_features = 4, .out_features = 3}, "
                  "g::LinearEpilogue::bias, g::Gradients::weights_and_input, "
                  "/*bias_gradient=*/true, 0, /*alignment=*/4, /*bias_alignment=*/4)") !=
        std::string::npos);
}

TEST_CASE(
    "generator: a formatter that fails stops the generator, and writes no file, and half a pair is "
    "refused") {
  const cg::ModelView model = view_of<sn::samples::SimpleCNN, sn::samples::SimpleCNNTraining>();
  const std::filesystem::path out = std::filesystem::temp_directory_path() /
                                    ("staticnet_format_test_" + std::to_string(::getpid()));
  std::string out_text = out.string();
  auto run = [&](std::vector<std::string> args) {
    args.insert(args.begin(), "generator");
    std::vector<char*> argv;
    for (std::string& a : args)
      argv.push_back(a.data());
    return cg::run_generator(static_cast<int>(argv.size()), argv.data(), model);
  };
  // /bin/false exits 1 and writes nothing: the generator reports it and writes no file.
  CHECK(run({"--out", out_text, "--backend", "cpu", "--clang-format", "/bin/false",
             "--format-style", "/dev/null"}) == 1);
  CHECK_FALSE(std::filesystem::exists(out / "m_model.h"));
  CHECK(run({"--out", out_text, "--clang-format", "/bin/false"}) == 2);  // a usage error
  std::filesystem::remove_all(out);
}

// Under mixed precision each tensor's element type follows the plan's dtype: the activations
// between the Linears are bf16 (k::BF16 in the section functions' signatures and the arena's
// accessor), the parameters and their gradients float. (The products' calls are checked against
// PyTorch in test_mixed_fixtures.cpp; here, the map groups' and the loss's signatures.)
TEST_CASE("emitters: a map group's tensors take the plan's dtypes under Mixed<bf16>") {
  using Net = sn::Sequential<sn::Linear<8>, sn::Sigmoid, sn::Dropout<25>, sn::Linear<2>>;
  using Train =
      sn::Training<sn::Input<sn::f32, 4>, sn::Batch<2>, sn::Precision<sn::detail::Mixed<sn::bf16>>>;
  const std::string source = cg::emit_cpu_backend(view_of<Net, Train>())[1].text;
  auto has = [&](const std::string& text) {
    INFO(text);
    CHECK(source.find(text) != std::string::npos);
  };
  has("k::BF16* bf16(std::byte* arena, std::int64_t offset)");
  has("void forward_layer_2(const k::BF16* x, k::BF16* y, k::MaskByte* mask,");
  has("void backward_layer_2(const k::MaskByte* mask, const k::BF16* dy, k::BF16* dx,");
  has("//   activation_0      bf16 (2, 8)");
  // The loss reads bf16 logits and writes their bf16 gradient; its values stay f32.
  has("const k::BF16* logits");
}
