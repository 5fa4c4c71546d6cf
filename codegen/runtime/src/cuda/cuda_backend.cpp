#include "staticnet/runtime/trainer/cuda_backend.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "staticnet/cuda/check.hpp"
#include "staticnet/cuda/device.hpp"
#include "staticnet/cuda/replay.hpp"
#include "staticnet/print.hpp"

namespace staticnet::runtime {

using cuda::check;

// Pinned host memory: two staging copies of the arena's inputs region (the loader fills one while
// the other's batch is in flight), and the step's per-sample results.
struct CudaBackend::Staging {
  std::byte* inputs[2] = {nullptr, nullptr};
  float* losses = nullptr;
  std::int32_t* predictions = nullptr;
  int next = 0;  // the buffer the loader writes now

  ~Staging() {
    for (std::byte* p : inputs)
      if (p)
        cudaFreeHost(p);
    if (losses)
      cudaFreeHost(losses);
    if (predictions)
      cudaFreeHost(predictions);
  }
};

CudaBackend::CudaBackend(const ModelInfo& model, CudaStepFactory make_step, CudaOptions options)
    : model_(model), options_(options), staging_(std::make_unique<Staging>()) {
  options_.graphs = options_.graphs && cuda::graphs_allowed();
  const cuda::OpenedDevice device = cuda::open_device(options.device, "trainer");
  device_name_ = device.name;
  sm_ = device.sm;
  total_ = device.total;
  context_ = device.in_use;

  check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate");
  check(cudaEventCreateWithFlags(&done_, cudaEventDisableTiming), "cudaEventCreate");
  arena_ = cuda::allocate_arena(model.arena.bytes, arena_measured_);

  const std::int64_t before_libraries = cuda::device_memory_in_use();
  step_ = make_step(arena_, stream_);
  check(cudaStreamSynchronize(stream_), "setting up the step");
  libraries_ = cuda::device_memory_in_use() - before_libraries;

  const auto inputs = static_cast<std::size_t>(model.arena.inputs);
  for (std::byte*& p : staging_->inputs) {
    check(cudaHostAlloc(reinterpret_cast<void**>(&p), inputs, cudaHostAllocDefault),
          "allocating pinned staging memory");
    std::memset(p, 0, inputs);
  }
  const auto batch = static_cast<std::size_t>(model.batch);
  check(cudaHostAlloc(reinterpret_cast<void**>(&staging_->losses), batch * sizeof(float),
                      cudaHostAllocDefault),
        "allocating pinned result memory");
  check(cudaHostAlloc(reinterpret_cast<void**>(&staging_->predictions),
                      batch * sizeof(std::int32_t), cudaHostAllocDefault),
        "allocating pinned result memory");
  std::fill_n(staging_->predictions, batch, -1);
}

CudaBackend::~CudaBackend() {
  if (stream_)
    cudaStreamSynchronize(stream_);
  for (cuda::ReplayedWork& r : replays_)
    r.reset();
  step_.reset();
  staging_.reset();
  if (arena_)
    cudaFree(arena_);
  if (done_)
    cudaEventDestroy(done_);
  if (stream_)
    cudaStreamDestroy(stream_);
}

std::string CudaBackend::description() const {
  return fmt::format("CUDA, {} (sm_{}), {}", device_name_, sm_,
                     options_.graphs ? "one CUDA graph per step" : "launch by launch");
}

std::string CudaBackend::details() const {
  return step_->describe();
}

template <class T>
static std::span<T> view(std::byte* base, std::int64_t offset, std::int64_t count) {
  if (offset < 0)
    return {};
  return {reinterpret_cast<T*>(base + offset), static_cast<std::size_t>(count)};
}

std::span<float> CudaBackend::batch_inputs() {
  return view<float>(staging_->inputs[staging_->next],
                     model_.arena.input_at - model_.arena.inputs_at,
                     model_.batch * model_.sample_elements());
}
std::span<std::int32_t> CudaBackend::batch_labels() {
  if (model_.arena.labels_at < 0)
    return {};
  return view<std::int32_t>(staging_->inputs[staging_->next],
                            model_.arena.labels_at - model_.arena.inputs_at, model_.batch);
}
std::span<float> CudaBackend::batch_targets() {
  if (model_.arena.targets_at < 0)
    return {};
  return view<float>(staging_->inputs[staging_->next],
                     model_.arena.targets_at - model_.arena.inputs_at,
                     model_.batch * model_.target_elements());
}

void CudaBackend::run(bool training) {
  wait();  // the previous step's results are read before this one overwrites them
  const int which = training ? 0 : 1;
  // The staged batch into the arena's inputs region, then the step.
  check(cudaMemcpyAsync(arena_ + model_.arena.inputs_at, staging_->inputs[staging_->next],
                        static_cast<std::size_t>(model_.arena.inputs), cudaMemcpyHostToDevice,
                        stream_),
        "copying the batch to the device");
  staging_->next ^= 1;  // the loader writes the next batch into the other buffer meanwhile

  auto enqueue = [&] {
    if (training)
      step_->train_step();
    else
      step_->evaluate();
    const auto batch = static_cast<std::size_t>(model_.batch);
    check(cudaMemcpyAsync(staging_->losses, arena_ + model_.arena.loss_at, batch * sizeof(float),
                          cudaMemcpyDeviceToHost, stream_),
          "copying the losses back");
    if (model_.arena.predictions_at >= 0)
      check(cudaMemcpyAsync(staging_->predictions, arena_ + model_.arena.predictions_at,
                            batch * sizeof(std::int32_t), cudaMemcpyDeviceToHost, stream_),
            "copying the predictions back");
  };
  replays_[which].run(stream_, options_.graphs, "the step", enqueue);
  check(cudaEventRecord(done_, stream_), "cudaEventRecord");
  pending_ = true;
}

void CudaBackend::wait() {
  if (!pending_)
    return;
  check(cudaEventSynchronize(done_), "running the step");
  pending_ = false;
}

void CudaBackend::train_step(const kernels::OptimizerConstants& constants) {
  step_->set_constants(constants);  // stream-ordered: after the step still running, if any
  run(true);
}

void CudaBackend::evaluate() {
  run(false);
}

std::span<const float> CudaBackend::losses() {
  wait();
  return {staging_->losses, static_cast<std::size_t>(model_.batch)};
}

std::span<const std::int32_t> CudaBackend::predictions() {
  wait();
  if (model_.arena.predictions_at < 0)
    return {};
  return {staging_->predictions, static_cast<std::size_t>(model_.batch)};
}

std::int64_t CudaBackend::state_offset(StateBuffer which) const {
  const std::int64_t at = state_at(model_.arena, which);
  if (at < 0)
    throw std::logic_error("CudaBackend: the optimizer keeps no such state");
  return at;
}

void CudaBackend::read_state(StateBuffer which, std::span<float> out) {
  if (static_cast<std::int64_t>(out.size()) != state_elements(model_, which))
    throw std::invalid_argument("CudaBackend::read_state: wrong size");
  wait();
  check(cudaMemcpy(out.data(), arena_ + state_offset(which), out.size_bytes(),
                   cudaMemcpyDeviceToHost),
        "reading state from the device");
}

void CudaBackend::write_state(StateBuffer which, std::span<const float> in) {
  if (static_cast<std::int64_t>(in.size()) != state_elements(model_, which))
    throw std::invalid_argument("CudaBackend::write_state: wrong size");
  wait();
  // On the step's stream, then waited for: a plain cudaMemcpy from pageable memory may return
  // before its data reach the device, and the step's stream does not wait for the default one.
  check(cudaMemcpyAsync(arena_ + state_offset(which), in.data(), in.size_bytes(),
                        cudaMemcpyHostToDevice, stream_),
        "writing state to the device");
  check(cudaStreamSynchronize(stream_), "writing state to the device");
}

MemoryReport CudaBackend::memory() const {
  MemoryReport r;
  r.planned = model_.arena.bytes;
  r.arena = model_.arena.bytes;  // the one cudaMalloc above, of exactly this size
  r.arena_where = fmt::format("device memory, one cudaMalloc (the device's free memory fell by {})",
                              to_string(Bytes{arena_measured_}));
  r.other = fmt::format(
      "CUDA context {} and cuDNN + cuBLASLt {} (cudaMemGetInfo, of {} on the device);\n"
      "                   pinned host staging {} (2 × the inputs region + results)",
      to_string(Bytes{context_}), to_string(Bytes{libraries_}), to_string(Bytes{total_}),
      to_string(Bytes{2 * model_.arena.inputs + model_.batch * 8}));
  return r;
}

}  // namespace staticnet::runtime
