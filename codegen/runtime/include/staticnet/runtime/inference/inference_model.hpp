#pragma once
// What an inference program knows about its model: the plan of an sn::Inference setup, filled
// in by the generated NAME_infer.h from NAME_model.h. The arena holds the weights, BatchNorm's
// running statistics, the batch's input, one kernel's workspace and the forward pass's live
// activations: no gradients, no optimizer state, nothing saved for backward.
#include <cstdint>
#include <string>
#include <vector>

#include "staticnet/runtime/parameter_tensor.hpp"

namespace staticnet::runtime {

struct InferenceModel {
  std::string name;        // staticnet_model(NAME ...)
  std::string model_type;  // as written in CMake
  std::string setup_type;
  std::int64_t batch = 0;
  std::vector<std::int64_t> sample_shape;  // one input sample, f32
  std::vector<std::int64_t> output_shape;  // one sample's output
  std::int64_t parameter_count = 0;
  std::int64_t non_trainable_count = 0;
  std::int64_t arena_bytes = 0;  // footprint.total(): the one allocation
  std::int64_t weights = 0, non_trainable = 0, inputs = 0, workspace = 0,
               activations = 0;  // the footprint, region by region
  std::int64_t parameters_at = -1, non_trainable_at = -1, input_at = -1, output_at = -1;
  std::vector<ParameterTensor> parameters;  // PyTorch's state-dict names, as the trainer's
  std::vector<ParameterTensor> non_trainable_tensors;  // "<layer>.running_mean", ...

  std::int64_t sample_elements() const;
  std::int64_t output_elements() const;
};

}  // namespace staticnet::runtime
