// The generated inference programs' forward pass (sn::Inference setups): BatchNorms folded into
// the convolution or Linear before them, checked by hand on small models and against PyTorch on
// the MLPerf Tiny models (the fixtures' evaluation loss: running statistics, no dropout, from
// PyTorch's float64 run, make_mlperf_fixtures.py).
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include <staticnet/runtime/inference/cpu_inference.hpp>

#include "fixture_batch.hpp"
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
#include "infer_resnet8_infer.h"
#include "infer_resnet8_kernels_cpu.h"
#include "pytorch_fixture_check.hpp"

namespace {

namespace rt = staticnet::runtime;

// Values by tensor name, in the model's parameter and running-statistics layouts.
struct Weights {
  std::vector<float> parameters, statistics;
};
Weights weights_of(const rt::InferenceModel& model,
                   const std::vector<std::pair<std::string, std::vector<float>>>& named) {
  Weights w{std::vector<float>(static_cast<std::size_t>(model.parameter_count)),
            std::vector<float>(static_cast<std::size_t>(model.non_trainable_count))};
  auto put = [&](const std::vector<rt::ParameterTensor>& tensors, std::vector<float>& region) {
    for (const rt::ParameterTensor& t : tensors)
      for (const auto& [name, values] : named)
        if (name == t.name) {
          REQUIRE(std::ssize(values) == t.elements());
          std::ranges::copy(values, region.begin() + t.offset);
        }
  };
  put(model.parameters, w.parameters);
  put(model.non_trainable_tensors, w.statistics);
  return w;
}

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

namespace {

// The fixture's weights and running statistics after its last training step, the fixture's batch
// through the folded forward pass, and the mean loss against PyTorch's evaluation loss of the
// same weights and batch (within 1e-5 relative, as the trainer's evaluation is checked).
void check_mlperf_inference(const std::string& name, const rt::InferenceModel& model,
                            rt::CpuInferenceSteps steps) {
  CAPTURE(name);
  const rt::SafetensorsReader file = pytorch_fixture::fixture("mlperf_" + name);
  REQUIRE(pytorch_fixture::setting(file, "batch") == static_cast<double>(model.batch));
  std::vector<std::pair<std::string, std::vector<float>>> named;
  for (const auto* tensors : {&model.parameters, &model.non_trainable_tensors})
    for (const rt::ParameterTensor& t : *tensors) {
      const std::vector<double> v = pytorch_fixture::values(file, "final." + t.name);
      named.push_back({t.name, {v.begin(), v.end()}});
    }
  std::vector<float> input(static_cast<std::size_t>(model.batch * model.sample_elements()));
  fixture_batch::inputs(input,
                        static_cast<std::uint64_t>(pytorch_fixture::setting(file, "input_offset")));
  const std::vector<float> y = run(model, steps, weights_of(model, named), input);

  double loss = 0;
  if (name == "fc_autoencoder") {  // MSE against the fixtures' targets, over every element
    std::vector<float> targets(y.size());
    fixture_batch::targets(targets);
    for (std::size_t i = 0; i < y.size(); ++i)
      loss += (static_cast<double>(y[i]) - targets[i]) * (static_cast<double>(y[i]) - targets[i]);
    loss /= static_cast<double>(y.size());
  } else {  // softmax cross-entropy against the fixtures' labels, the batch's mean
    const std::int64_t classes = model.output_elements();
    std::vector<std::int32_t> labels(static_cast<std::size_t>(model.batch));
    fixture_batch::labels(labels, classes);
    for (std::int64_t n = 0; n < model.batch; ++n) {
      const float* z = y.data() + n * classes;
      double top = z[0], sum = 0;
      for (std::int64_t c = 1; c < classes; ++c)
        top = std::max(top, static_cast<double>(z[c]));
      for (std::int64_t c = 0; c < classes; ++c)
        sum += std::exp(z[c] - top);
      loss += top + std::log(sum) - z[labels[static_cast<std::size_t>(n)]];
    }
    loss /= static_cast<double>(model.batch);
  }
  const double expected = pytorch_fixture::values(file, "eval_loss")[0];
  CHECK(std::abs(loss - expected) <= 1e-5 * std::abs(expected));
}

}  // namespace

#define STATICNET_INFERENCE_CASE(model)                                                          \
  TEST_CASE("pytorch: MLPerf Tiny " #model " inference, BatchNorms folded") {                    \
    check_mlperf_inference(#model, infer_##model::model_info(),                                  \
                           {&infer_##model::cpu::fold_batch_norms, &infer_##model::cpu::infer}); \
  }

STATICNET_INFERENCE_CASE(resnet8)
STATICNET_INFERENCE_CASE(ds_cnn)
STATICNET_INFERENCE_CASE(mobilenet_v1)
STATICNET_INFERENCE_CASE(fc_autoencoder)
