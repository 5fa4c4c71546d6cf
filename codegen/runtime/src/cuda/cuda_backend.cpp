#include "staticnet/runtime/trainer/cuda_backend.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <iterator>
#include <stdexcept>
#include <utility>

#include "staticnet/cuda/check.hpp"
#include "staticnet/cuda/device.hpp"
#include "staticnet/cuda/replay.hpp"
#include "staticnet/print.hpp"

namespace staticnet::runtime {

using cuda::check;

// Pinned host memory: two staging copies of the arena's batch (the loader fills one while the
// other's batch is in flight), and the step's per-sample results.
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
  try {
    set_up(make_step);
  } catch (...) {
    release();  // the destructor does not run for an object whose constructor threw
    throw;
  }
}

void CudaBackend::set_up(CudaStepFactory make_step) {
  options_.graphs = options_.graphs && cuda::graphs_allowed();
  const cuda::OpenedDevice device = cuda::open_device(options_.device, "trainer");
  device_name_ = device.name;
  sm_ = device.sm;
  total_ = device.total;
  context_ = device.in_use;

  check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate");
  check(cudaEventCreateWithFlags(&done_, cudaEventDisableTiming), "cudaEventCreate");
  if (prefetches()) {
    check(cudaStreamCreateWithFlags(&copies_, cudaStreamNonBlocking), "cudaStreamCreate");
    check(cudaEventCreateWithFlags(&arrived_, cudaEventDisableTiming), "cudaEventCreate");
    check(cudaEventCreateWithFlags(&slot_free_, cudaEventDisableTiming), "cudaEventCreate");
  }
  arena_ = cuda::allocate_arena(model_.arena.bytes, arena_measured_);

  const std::int64_t before_libraries = cuda::device_memory_in_use();
  step_ = make_step(arena_, stream_);
  check(cudaStreamSynchronize(stream_), "setting up the step");
  libraries_ = cuda::device_memory_in_use() - before_libraries;

  const auto batch_bytes = static_cast<std::size_t>(model_.arena.batch_bytes);
  for (std::byte*& p : staging_->inputs) {
    check(cudaHostAlloc(reinterpret_cast<void**>(&p), batch_bytes, cudaHostAllocDefault),
          "allocating pinned staging memory");
    std::memset(p, 0, batch_bytes);
  }
  const auto batch = static_cast<std::size_t>(model_.batch);
  check(cudaHostAlloc(reinterpret_cast<void**>(&staging_->losses), batch * sizeof(float),
                      cudaHostAllocDefault),
        "allocating pinned result memory");
  check(cudaHostAlloc(reinterpret_cast<void**>(&staging_->predictions),
                      batch * sizeof(std::int32_t), cudaHostAllocDefault),
        "allocating pinned result memory");
  std::fill_n(staging_->predictions, batch, -1);
  pinned_ = static_cast<std::int64_t>(std::size(staging_->inputs) * batch_bytes +
                                      batch * (sizeof(float) + sizeof(std::int32_t)));
  set_up_ = cuda::device_memory_in_use();
}

CudaBackend::~CudaBackend() {
  release();
}

void CudaBackend::release() noexcept {
  if (copies_)
    cudaStreamSynchronize(copies_);
  if (stream_)
    cudaStreamSynchronize(stream_);
  for (cuda::ReplayedWork& r : replays_)
    r.reset();
  step_.reset();
  staging_.reset();
  if (arena_)
    cudaFree(std::exchange(arena_, nullptr));
  for (cudaEvent_t* e : {&done_, &arrived_, &slot_free_})
    if (*e)
      cudaEventDestroy(std::exchange(*e, nullptr));
  for (cudaStream_t* s : {&copies_, &stream_})
    if (*s)
      cudaStreamDestroy(std::exchange(*s, nullptr));
}

std::string CudaBackend::description() const {
  return fmt::format("CUDA, {} (sm_{}), {}", device_name_, sm_,
                     options_.graphs ? "one CUDA graph per step" : "launch by launch");
}

// The launch mode is left out: a graph replays the same kernels on the same addresses, and the
// two save identical checkpoints (tests/codegen/cuda_trainer.cmake).
std::string CudaBackend::arithmetic() const {
  return fmt::format("CUDA, {} (sm_{})", device_name_, sm_);
}

std::string CudaBackend::details() const {
  const std::string batch = to_string(Bytes{model_.arena.batch_bytes});
  if (prefetches())
    return fmt::format(
        "batch: {} copied into next_batch while the step before runs (Prefetch), "
        "then moved into place on the device\n{}",
        batch, step_->describe());
  // Without Prefetch batch_bytes is the inputs region, which Prefetch would add once more.
  return fmt::format(
      "batch: {0} copied in after the step before ends (sn::Prefetch in the setup "
      "overlaps the copy with that step, for {0} more of the arena)\n{1}",
      batch, step_->describe());
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

void CudaBackend::send_batch() {
  if (sent_)
    return;
  const auto bytes = static_cast<std::size_t>(model_.arena.batch_bytes);
  const std::byte* const from = staging_->inputs[staging_->next];
  if (prefetches()) {
    // Once the step before has moved the previous batch out of next_batch; the step that may
    // still be running reads only the batch in place.
    check(cudaStreamWaitEvent(copies_, slot_free_, 0), "cudaStreamWaitEvent");
    check(cudaMemcpyAsync(arena_ + model_.arena.next_batch_at, from, bytes, cudaMemcpyHostToDevice,
                          copies_),
          "copying the batch to the device");
    check(cudaEventRecord(arrived_, copies_), "cudaEventRecord");
  } else {
    // Stream-ordered after the step that still reads the batch in place.
    check(cudaMemcpyAsync(arena_ + model_.arena.inputs_at, from, bytes, cudaMemcpyHostToDevice,
                          stream_),
          "copying the batch to the device");
  }
  sent_ = true;
}

void CudaBackend::batch_ready() {
  send_batch();
}

void CudaBackend::run(bool training) {
  wait();  // the previous step's results are read before this one overwrites them
  const int which = training ? 0 : 1;
  send_batch();
  if (prefetches()) {
    // Outside the captured step, so that next_batch is free for the batch after this one as soon
    // as this copy is done rather than when the whole step is.
    check(cudaStreamWaitEvent(stream_, arrived_, 0), "cudaStreamWaitEvent");
    check(cudaMemcpyAsync(arena_ + model_.arena.inputs_at, arena_ + model_.arena.next_batch_at,
                          static_cast<std::size_t>(model_.arena.batch_bytes),
                          cudaMemcpyDeviceToDevice, stream_),
          "moving the batch into place");
    check(cudaEventRecord(slot_free_, stream_), "cudaEventRecord");
  }
  sent_ = false;
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
  r.pinned_staging = pinned_;
  r.other = fmt::format(
      "CUDA context {} and cuDNN + cuBLASLt {} (cudaMemGetInfo, of {} on the device);\n"
      "                   pinned host staging {} (2 × the batch + results)",
      to_string(Bytes{context_}), to_string(Bytes{libraries_}), to_string(Bytes{total_}),
      to_string(Bytes{r.pinned_staging}));
  // Asked again after steps have run (the bench does): what the device gained since start-up,
  // which the context and libraries figures above do not include. A device profile's overhead
  // (include/staticnet/device.hpp) must cover it too. Other processes on the device count here.
  if (const std::int64_t grown = cuda::device_memory_in_use() - set_up_; grown > 0)
    r.other += fmt::format(
        ";\n                   since start-up {} more on the device (kernel and library modules "
        "loaded at first use, the CUDA graphs)",
        to_string(Bytes{grown}));
  return r;
}

}  // namespace staticnet::runtime
