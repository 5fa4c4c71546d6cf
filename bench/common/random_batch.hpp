#pragma once
// The batch the step benchmarks time on: initial weights (and BatchNorm's running statistics) as
// the trainer makes them, random normal inputs and random labels (or, under MSE, random normal
// targets) written into the backend's batch buffers. Random, as real data looks
// to the branch predictor (a regular pattern would let data-dependent branches predict well and
// flatter the step); the same numbers on every backend.
#include <cstdint>
#include <vector>

#include <staticnet/runtime/formats/synthetic.hpp>
#include <staticnet/runtime/prng.hpp>
#include <staticnet/runtime/trainer/backend.hpp>
#include <staticnet/runtime/trainer/initialize.hpp>

namespace bench {

inline void initialize_parameters(const staticnet::runtime::ModelInfo& model,
                                  staticnet::runtime::Backend& backend) {
  std::vector<float> parameters(static_cast<std::size_t>(model.parameter_count));
  staticnet::runtime::initialize_parameters(model, 0, parameters);
  backend.write_state(staticnet::runtime::StateBuffer::parameters, parameters);
  if (model.non_trainable_count > 0) {
    std::vector<float> statistics(static_cast<std::size_t>(model.non_trainable_count));
    staticnet::runtime::initialize_non_trainable(model, statistics);
    backend.write_state(staticnet::runtime::StateBuffer::non_trainable, statistics);
  }
}

inline void write_random_batch(const staticnet::runtime::ModelInfo& model,
                               staticnet::runtime::Backend& backend) {
  namespace rt = staticnet::runtime;
  auto inputs = backend.batch_inputs();
  for (std::size_t i = 0; i < inputs.size(); ++i)
    inputs[i] = static_cast<float>(rt::synthetic_normal(0, 1, i, 0));
  if (!model.classifies()) {
    auto targets = backend.batch_targets();
    for (std::size_t i = 0; i < targets.size(); ++i)
      targets[i] = static_cast<float>(rt::synthetic_normal(0, 1, i, 1));
    return;
  }
  auto labels = backend.batch_labels();
  for (std::size_t n = 0; n < labels.size(); ++n)
    labels[n] = static_cast<std::int32_t>(rt::SplitMix64::finalize(n) %
                                          static_cast<std::uint64_t>(model.classes));
}

}  // namespace bench
