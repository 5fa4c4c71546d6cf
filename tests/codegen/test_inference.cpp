// The generated inference programs' forward pass (sn::Inference setups) on the CPU: BatchNorms
// folded into the convolution or Linear before them, and the scores, checked by hand on small
// models and against PyTorch on the MLPerf Tiny models (inference_check.hpp: the fixtures'
// evaluation loss, running statistics, no dropout, from PyTorch's float64 run,
// make_mlperf_fixtures.py).
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <staticnet/runtime/checkpoints/checkpoint.hpp>
#include <staticnet/runtime/error.hpp>
#include <staticnet/runtime/inference/cpu_inference.hpp>
#include <staticnet/runtime/inference/infer.hpp>

#include "infer_conv_bias_bn_infer.h"
#include "infer_conv_bias_bn_kernels_cpu.h"
#include "infer_conv_bn_relu_infer.h"
#include "infer_conv_bn_relu_kernels_cpu.h"
#include "infer_depthwise_bn_relu_infer.h"
#include "infer_depthwise_bn_relu_kernels_cpu.h"
#include "infer_ds_cnn_infer.h"
#include "infer_ds_cnn_kernels_cpu.h"
#include "infer_fc_autoencoder_infer.h"
#include "infer_fc_autoencoder_kernels_cpu.h"
#include "infer_mobilenet_v1_infer.h"
#include "infer_mobilenet_v1_kernels_cpu.h"
#include "infer_regression_infer.h"
#include "infer_regression_kernels_cpu.h"
#include "infer_resnet8_infer.h"
#include "infer_resnet8_kernels_cpu.h"
#include "inference_check.hpp"

namespace {

namespace rt = staticnet::runtime;
using inference_check::Weights;
using inference_check::weights_of;

std::vector<float> run(const rt::InferenceModel& model, rt::CpuInferenceSteps steps,
                       const Weights& w, const std::vector<float>& input) {
  rt::CpuInference inference(model, steps, 2);
  inference.load(w.parameters, w.statistics);
  std::ranges::copy(input, inference.input().begin());
  inference.run();
  return {inference.output().begin(), inference.output().end()};
}

}  // namespace

// Hand-derived. Conv2d 1x1 (w = 2, no bias), BatchNorm with γ = 3, β = 1, running mean 0.5 and
// variance 0.75, ε = 0.25: s = 3/√(0.75 + 0.25) = 3, so the folded weight is 6 and the shift
// 1 − 0.5·3 = −0.5. x = (1, −1): unfolded 3·(2 − 0.5) + 1 = 5.5 and 3·(−2 − 0.5) + 1 = −6.5, so
// after the ReLU (5.5, 0).
TEST_CASE("inference: a BatchNorm folds into the convolution before it (by hand)") {
  const rt::InferenceModel model = infer_conv_bn_relu::model_info();
  const Weights w = weights_of(model, {{"0.weight", {2}},
                                       {"1.weight", {3}},
                                       {"1.bias", {1}},
                                       {"1.running_mean", {0.5f}},
                                       {"1.running_var", {0.75f}}});
  rt::CpuInference inference(
      model, {&infer_conv_bn_relu::cpu::fold_batch_norms, &infer_conv_bn_relu::cpu::infer}, 1);
  inference.load(w.parameters, w.statistics);
  const float* params = reinterpret_cast<const float*>(inference.arena() + model.parameters_at);
  CHECK(params[0] == 6.0f);   // 0.weight, scaled by s = 3
  CHECK(params[2] == -0.5f);  // 1.bias, now the shift
  inference.input()[0] = 1;
  inference.input()[1] = -1;
  inference.run();
  CHECK(inference.output()[0] == 5.5f);
  CHECK(inference.output()[1] == 0.0f);
  CHECK_THROWS_AS(inference.load(w.parameters, w.statistics), std::logic_error);  // folds once
}

// With the convolution's bias b = 0.5 folded into the shift: 1 + (0.5 − 0.5)·3 = 1. x = (1, −1):
// 3·(2.5 − 0.5) + 1 = 7 and 3·(−1.5 − 0.5) + 1 = −5 (no ReLU).
TEST_CASE("inference: a convolution's bias folds into the BatchNorm's shift (by hand)") {
  const rt::InferenceModel model = infer_conv_bias_bn::model_info();
  const Weights w = weights_of(model, {{"0.weight", {2}},
                                       {"0.bias", {0.5f}},
                                       {"1.weight", {3}},
                                       {"1.bias", {1}},
                                       {"1.running_mean", {0.5f}},
                                       {"1.running_var", {0.75f}}});
  const std::vector<float> y =
      run(model, {&infer_conv_bias_bn::cpu::fold_batch_norms, &infer_conv_bias_bn::cpu::infer}, w,
          {1, -1});
  CHECK(y == std::vector<float>{7, -5});
}

// A depthwise convolution (the direct kernel) with two channels. Channel 0: w = 2, b = 0, γ = 1,
// β = 0, mean 0, var 0.75 (s = 1): x = 3 gives 6. Channel 1: w = −1, b = 1, γ = 2, β = 0.5,
// mean 1, var 3.75 (s = 2/√4 = 1): x = −4 gives 2·(5 − 1)/2 + 0.5 = 4.5.
TEST_CASE("inference: a BatchNorm folds into a depthwise convolution, with the ReLU (by hand)") {
  const rt::InferenceModel model = infer_depthwise_bn_relu::model_info();
  const Weights w = weights_of(model, {{"0.weight", {2, -1}},
                                       {"0.bias", {0, 1}},
                                       {"1.weight", {1, 2}},
                                       {"1.bias", {0, 0.5f}},
                                       {"1.running_mean", {0, 1}},
                                       {"1.running_var", {0.75f, 3.75f}}});
  const std::vector<float> y =
      run(model,
          {&infer_depthwise_bn_relu::cpu::fold_batch_norms, &infer_depthwise_bn_relu::cpu::infer},
          w, {3, -4});
  CHECK(y == std::vector<float>{6, 4.5f});
}

#define STATICNET_INFERENCE_CASE(model)                                        \
  TEST_CASE("pytorch: MLPerf Tiny " #model " inference, BatchNorms folded") {  \
    const rt::InferenceModel info = infer_##model::model_info();               \
    const rt::CpuInferenceSteps steps{&infer_##model::cpu::fold_batch_norms,   \
                                      &infer_##model::cpu::infer};             \
    inference_check::check_mlperf_inference(                                   \
        #model, info, [&](const Weights& w, const std::vector<float>& input) { \
          return run(info, steps, w, input);                                   \
        });                                                                    \
  }

STATICNET_INFERENCE_CASE(resnet8)
STATICNET_INFERENCE_CASE(ds_cnn)
STATICNET_INFERENCE_CASE(mobilenet_v1)
STATICNET_INFERENCE_CASE(fc_autoencoder)

// Hand-derived. Linear 3 -> 1 with w = (1, 2, 3), b = 0.5 predicts x1 + 2 x2 + 3 x3 + 0.5: 1.5,
// 2.5 and 3.5 for the three unit vectors, against targets 2, 2.5 and 4 in the CSV's "y" column,
// which is not the last. Errors -0.5, 0, -0.5: mean squared error 0.5 / 3.
TEST_CASE("inference: a single-output model is scored by its MSE, a CSV column its targets") {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / "staticnet_test_inference_regression";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const rt::InferenceModel model = infer_regression::model_info();
  // Each run below gets a backend of its own: one thread, the generated steps.
  const rt::CpuInferenceSteps steps{&infer_regression::cpu::fold_batch_norms,
                                    &infer_regression::cpu::infer};
  rt::Checkpoint weights;
  auto add = [&](const char* name, std::vector<std::int64_t> shape, std::vector<float> values) {
    rt::CheckpointTensor t{name, rt::Dtype::f32, std::move(shape), {}};
    t.data.resize(values.size() * sizeof(float));
    std::memcpy(t.data.data(), values.data(), t.data.size());
    weights.tensors.push_back(std::move(t));
  };
  add("0.weight", {1, 3}, {1, 2, 3});
  add("0.bias", {1}, {0.5f});
  rt::save_checkpoint(dir / "weights.safetensors", weights);
  std::ofstream(dir / "data.csv") << "x1,x2,y,x3\n1,0,2,0\n0,1,2.5,0\n0,0,4,1\n";

  rt::InferOptions options;
  options.weights = dir / "weights.safetensors";
  options.data = {(dir / "data.csv").string()};
  options.label_column = "y";
  options.output = dir / "outputs.npy";
  rt::CpuInference inference(model, steps, 1);
  std::ostringstream out;
  const rt::InferResult result = rt::run_inference(model, inference, options, out);
  CHECK(result.samples == 3);
  CHECK_FALSE(result.accuracy);
  REQUIRE(result.mean_squared_error);
  CHECK(*result.mean_squared_error == doctest::Approx(0.5 / 3).epsilon(1e-12));
  CHECK(out.str().find("mean squared error 0.166667\n") != std::string::npos);
  // Weights without the input normalisation a trainer keeps (as PyTorch's save_file writes them):
  // said, since the inputs then go in as read.
  CHECK(out.str().find("weights.safetensors keeps no input normalisation (a weights file from "
                       "PyTorch?): the inputs go in as above") != std::string::npos);

  // The same weights in BF16 (PyTorch's model.bfloat16()): 1, 2, 3 and 0.5 are exact there.
  rt::Checkpoint half;
  auto add_bf16 = [&](const char* name, std::vector<std::int64_t> shape,
                      std::vector<std::uint16_t> bits) {
    rt::CheckpointTensor t{name, rt::Dtype::bf16, std::move(shape), {}};
    t.data.resize(bits.size() * sizeof(std::uint16_t));
    std::memcpy(t.data.data(), bits.data(), t.data.size());
    half.tensors.push_back(std::move(t));
  };
  add_bf16("0.weight", {1, 3}, {0x3F80, 0x4000, 0x4040});
  add_bf16("0.bias", {1}, {0x3F00});
  rt::save_checkpoint(dir / "bf16.safetensors", half);
  rt::InferOptions from_bf16 = options;
  from_bf16.weights = dir / "bf16.safetensors";
  from_bf16.scale = 1.0f;  // the normalisation given: nothing to say
  rt::CpuInference on_bf16(model, steps, 1);
  std::ostringstream bf16_out;
  CHECK(*rt::run_inference(model, on_bf16, from_bf16, bf16_out).mean_squared_error ==
        doctest::Approx(0.5 / 3).epsilon(1e-12));
  CHECK(bf16_out.str().find("bf16.safetensors, its BF16 values converted to F32\n") !=
        std::string::npos);
  CHECK(bf16_out.str().find("keeps no input normalisation") == std::string::npos);

  // The same rows with another delimiter, under a header of numbers that only --header tells
  // from data.
  std::ofstream(dir / "pipe.csv") << "0|1|2|3\n1|0|2|0\n0|1|2.5|0\n0|0|4|1\n";
  rt::InferOptions pipe = options;
  pipe.data = {(dir / "pipe.csv").string()};
  pipe.label_column = "2";
  pipe.csv_delimiter = '|';
  pipe.csv_header = rt::CsvHeader::present;
  rt::CpuInference piped(model, steps, 1);
  CHECK(*rt::run_inference(model, piped, pipe, out).mean_squared_error ==
        doctest::Approx(0.5 / 3).epsilon(1e-12));

  // Weights trained on inputs scaled by 2 (their checkpoint says so): the inputs are doubled
  // unless told otherwise. Predictions 2.5, 4.5, 6.5: errors 0.5, 2, 2.5, MSE 10.5 / 3.
  weights.extra_metadata["input_scale"] = "2";
  rt::save_checkpoint(dir / "scaled.safetensors", weights);
  options.weights = dir / "scaled.safetensors";
  rt::CpuInference scaled(model, steps, 1);
  std::ostringstream scaled_out;
  CHECK(*rt::run_inference(model, scaled, options, scaled_out).mean_squared_error ==
        doctest::Approx(10.5 / 3).epsilon(1e-12));
  CHECK(scaled_out.str().find("  inputs   scale 2\n           input scale 2 from the "
                              "checkpoint\n") != std::string::npos);
  options.scale = 1.0f;  // given: it wins, and the run says what it replaced
  rt::CpuInference given(model, steps, 1);
  std::ostringstream given_out;
  CHECK(*rt::run_inference(model, given, options, given_out).mean_squared_error ==
        doctest::Approx(0.5 / 3).epsilon(1e-12));
  CHECK(given_out.str().find("--scale 1 replaces the checkpoint's 2") != std::string::npos);

  // Weights trained on u8 pixels with the default 1/255 meet f32 data, scaled by 1: a note.
  weights.extra_metadata = {{"input_element_type", "u8"}};
  rt::save_checkpoint(dir / "pixels.safetensors", weights);
  rt::InferOptions pixels = options;
  pixels.weights = dir / "pixels.safetensors";
  pixels.scale.reset();
  rt::CpuInference on_pixels(model, steps, 1);
  std::ostringstream pixels_out;
  rt::run_inference(model, on_pixels, pixels, pixels_out);
  CHECK(pixels_out.str().find("the model was trained on u8 data, scaled by its default "
                              "0.003921569; this data is f32, scaled by 1") != std::string::npos);

  // Class labels (an IDX file of u8 labels) cannot score one output: refused, saying why.
  const unsigned char images[] = {0, 0, 8, 2, 0, 0, 0, 3, 0, 0, 0, 3, 1, 0, 0, 0, 1, 0, 0, 0, 1};
  const unsigned char labels[] = {0, 0, 8, 1, 0, 0, 0, 3, 2, 2, 4};
  std::ofstream(dir / "images.idx", std::ios::binary)
      .write(reinterpret_cast<const char*>(images), sizeof images);
  std::ofstream(dir / "labels.idx", std::ios::binary)
      .write(reinterpret_cast<const char*>(labels), sizeof labels);
  rt::InferOptions classes = options;
  classes.data = {(dir / "images.idx").string(), (dir / "labels.idx").string()};
  classes.label_column.clear();
  try {
    rt::run_inference(model, on_pixels, classes, out);
    FAIL("scored class labels against one output");
  } catch (const rt::InferenceSetupError& e) {
    CHECK(std::string(e.what()).ends_with(
        "(a single value: a regression's, scored against float targets)"));
  }

  // An --output that cannot be written is refused before the first sample.
  options.output = dir / "no-such-folder" / "outputs.npy";
  std::ostringstream refused_out;
  CHECK_THROWS_AS(rt::run_inference(model, inference, options, refused_out), rt::IoError);
  CHECK(refused_out.str().empty());  // not a sample run, not even the start-up report
  fs::remove_all(dir);
}
