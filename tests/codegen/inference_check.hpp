#pragma once
// The generated inference programs' forward pass against PyTorch on the MLPerf Tiny models: the
// fixture's weights and running statistics after its last training step, the fixture's batch
// through the folded forward pass, and the mean loss against PyTorch's float64 evaluation loss of
// the same weights and batch (within 1e-5 relative, as the trainers' evaluation is checked).
// test_inference.cpp runs it on the CPU, cuda/test_inference_cuda.cpp on the GPU.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <staticnet/runtime/inference/inference_model.hpp>

#include "fixture_batch.hpp"
#include "pytorch_fixture_check.hpp"

namespace inference_check {

namespace rt = staticnet::runtime;

// Values by tensor name, in the model's parameter and running-statistics layouts.
struct Weights {
  std::vector<float> parameters, statistics;
};
inline Weights weights_of(const rt::InferenceModel& model,
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

// One forward pass of the model with these weights over this input: the output.
using ForwardPass = std::function<std::vector<float>(const Weights&, const std::vector<float>&)>;

inline void check_mlperf_inference(const std::string& name, const rt::InferenceModel& model,
                                   const ForwardPass& run) {
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
  const std::vector<float> y = run(weights_of(model, named), input);

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

}  // namespace inference_check
