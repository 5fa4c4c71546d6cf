#pragma once
// Where a trainer's step runs. The training loop (train.hpp) writes each batch, runs steps, and
// reads results and state only through this interface, so the CPU backend (cpu_backend.hpp) and
// the CUDA backend run the same loop.
//
// Every backend holds the whole step in one arena of ModelInfo::arena.bytes, laid out by the plan.
#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>

#include "staticnet/kernels/mixed_precision.hpp"
#include "staticnet/kernels/optimizers.hpp"
#include "staticnet/runtime/trainer/model_info.hpp"

namespace staticnet::runtime {

// The persistent buffers of the arena: one value per parameter (those a checkpoint saves and
// restores, and the gradients, which hold the last train_step's: tests compare them with
// PyTorch), and BatchNorm's running statistics (non_trainable_count values).
enum class StateBuffer { parameters, moment1, moment2, gradients, non_trainable };

// Where `which` starts in the arena: a byte offset, or -1 when the setup has no such buffer (an
// optimizer without moments).
inline std::int64_t state_at(const ArenaLayout& arena, StateBuffer which) {
  switch (which) {
    case StateBuffer::parameters:
      return arena.parameters_at;
    case StateBuffer::moment1:
      return arena.moment1_at;
    case StateBuffer::moment2:
      return arena.moment2_at;
    case StateBuffer::gradients:
      return arena.gradients_at;
    case StateBuffer::non_trainable:
      return arena.non_trainable_at;
  }
  return -1;
}

// How many floats `which` holds.
inline std::int64_t state_elements(const ModelInfo& model, StateBuffer which) {
  return which == StateBuffer::non_trainable ? model.non_trainable_count : model.parameter_count;
}

struct MemoryReport {
  std::int64_t planned = 0;  // footprint.total()
  std::int64_t arena = 0;    // bytes actually allocated for the model (one allocation)
  std::string arena_where;   // "host memory, 256-byte aligned"
  std::string other;         // what else the backend holds, in words ("" when nothing)
  // The plan's parts this backend keeps in host memory: the arena's bytes where it is host
  // memory (the CPU trainer's), and the pinned staging it allocated (the CUDA trainer's).
  std::int64_t host_arena = 0;
  std::int64_t pinned_staging = 0;
};

class Backend {
 public:
  virtual ~Backend() = default;

  // "CPU, 2 threads, OpenBLAS"
  virtual std::string description() const = 0;
  // What decides how the step's sums round: the description, less what changes no bit of the
  // result (the CUDA backend's graph or launch-by-launch). Checkpoints keep it, so that a run
  // resumed elsewhere can say that it no longer repeats the interrupted run bit for bit.
  virtual std::string arithmetic() const { return description(); }
  // More about how the step runs, lines the trainer prints at start-up ("" when nothing).
  virtual std::string details() const { return ""; }

  // Host memory the next batch is written into, in the plan's layout: inputs f32 [batch, sample],
  // labels i32 [batch] (cross_entropy) or targets f32 [batch, target] (mean_squared_error). The
  // spans stay valid for the backend's life; the other kind is empty.
  virtual std::span<float> batch_inputs() = 0;
  virtual std::span<std::int32_t> batch_labels() = 0;
  virtual std::span<float> batch_targets() = 0;
  // The loader has written the next batch there. A backend may start moving it to its device
  // now, while the step before it still runs (the CUDA backend does under Prefetch); the next
  // train_step or evaluate does it otherwise. Write nothing more into the batch until that runs.
  virtual void batch_ready() {}

  // One optimizer step on the batch: zero the gradients, forward, loss, backward, update.
  virtual void train_step(const kernels::OptimizerConstants& constants) = 0;
  // Forward and loss on the batch; parameters and optimizer state untouched.
  virtual void evaluate() = 0;

  // Results of the last train_step or evaluate, per sample of the batch.
  virtual std::span<const float> losses() = 0;
  virtual std::span<const std::int32_t> predictions() = 0;  // cross_entropy only

  // Copies of the persistent state, in the plan's layout (state_elements() floats each).
  virtual void read_state(StateBuffer which, std::span<float> out) = 0;
  virtual void write_state(StateBuffer which, std::span<const float> in) = 0;

  // Under loss scaling (ModelInfo::arena.loss_scale_at >= 0), the scaler's state: its scale, its
  // count of clean steps, and whether the last train_step found an Inf or a NaN in its gradients
  // (and so skipped its update). A backend starts it at GradScaler's initial state. Without loss
  // scaling, none, and writing one is a std::logic_error.
  virtual std::optional<kernels::LossScaleState> loss_scale() { return std::nullopt; }
  virtual void write_loss_scale(const kernels::LossScaleState&) {
    throw std::logic_error("this backend's model has no loss scaler");
  }

  virtual MemoryReport memory() const = 0;
};

}  // namespace staticnet::runtime
