#pragma once
// What a trainer knows about its model: the plan's numbers that the training loop, the data
// loader and checkpoints need, filled in by the generated entry point from NAME_model.h. The
// trainer library is compiled once; the model arrives as this value.
#include <cstdint>
#include <string>
#include <vector>

#include "staticnet/kernels/optimizers.hpp"
#include "staticnet/runtime/parameter_tensor.hpp"

namespace staticnet::runtime {

enum class LossFunction { cross_entropy, mean_squared_error };

// The arena as the plan laid it out: its regions' sizes and where the buffers a host touches
// start (byte offsets; -1 for buffers the setup does not have).
struct ArenaLayout {
  std::int64_t bytes = 0;  // footprint.total(): the one allocation
  std::int64_t weights = 0, gradients = 0, optimizer_state = 0, inputs = 0, workspace = 0,
               activations = 0;    // the footprint, region by region
  std::int64_t non_trainable = 0;  // BatchNorm running statistics (0 without BatchNorm)
  std::int64_t parameters_at = -1, gradients_at = -1, moment1_at = -1, moment2_at = -1;
  std::int64_t non_trainable_at = -1;
  // The inputs region: the input, then labels or targets (the batch), then under Prefetch the
  // next batch in the same layout.
  std::int64_t inputs_at = -1;
  std::int64_t input_at = -1, labels_at = -1, targets_at = -1;
  // The batch as the host stages and copies it, from inputs_at: through the labels or targets
  // (under Prefetch), or the whole inputs region (without; its end is padding).
  std::int64_t batch_bytes = 0;
  // Prefetch: where the next batch arrives, in the same layout (-1 without Prefetch).
  std::int64_t next_batch_at = -1;
  std::int64_t loss_at = -1, predictions_at = -1;
  // Mixed<f16>: the loss scaler's state (kernels::LossScaleState), which the step reads and
  // updates; the host initialises it, reports it, and checkpoints keep it.
  std::int64_t loss_scale_at = -1;
};

// What the plan says the trainer holds in host memory beside the arena (plan.host, bytes).
struct HostPlan {
  int batch_slot_count = 2;           // BatchSlots<N>: batches the loader fills ahead of the step
  std::int64_t batch_slots = 0;       // those N batches
  std::int64_t pinned_staging = 0;    // the CUDA trainer's page-locked copies of the batch
  std::int64_t checkpoint_state = 0;  // one f32 copy of the parameters, moments, statistics
};

struct ModelInfo {
  std::string name;        // staticnet_model(NAME ...)
  std::string model_type;  // as written in CMake
  std::string setup_type;
  std::string precision = "FP32";  // the setup's: "FP32", "Mixed<bf16>", "Mixed<f16>"
  std::int64_t batch = 0;
  std::int64_t micro_batches = 1;  // Accumulate<K>: the step runs K micro-batches of batch / K
  std::vector<std::int64_t> sample_shape;  // one input sample, f32
  LossFunction loss = LossFunction::cross_entropy;
  std::int64_t classes = 0;                // cross_entropy
  std::vector<std::int64_t> target_shape;  // mean_squared_error: one sample's target
  kernels::Optimizer optimizer = kernels::Optimizer::sgd;
  std::int64_t parameter_count = 0;
  ArenaLayout arena;
  HostPlan host;
  std::vector<ParameterTensor> parameters;
  std::int64_t non_trainable_count = 0;        // BatchNorm running statistics
  std::vector<ParameterTensor> non_trainable;  // "<layer>.running_mean", "<layer>.running_var"

  std::int64_t sample_elements() const;
  std::int64_t target_elements() const;
  bool classifies() const { return loss == LossFunction::cross_entropy; }
  // Optimizer state tensors per parameter: 0, 1 (momentum buffer) or 2 (Adam's two moments).
  int moments() const;
};

// "sgd", "sgd_momentum", "adam", "adamw": the optimizer's name in checkpoints.
const char* optimizer_key(kernels::Optimizer optimizer);
// "SGD", "SGDMomentum", "Adam", "AdamW"
const char* optimizer_name(kernels::Optimizer optimizer);
// PyTorch's names for an optimizer's state: "momentum_buffer"; "exp_avg", "exp_avg_sq".
const char* moment_name(kernels::Optimizer optimizer, int moment);

}  // namespace staticnet::runtime
