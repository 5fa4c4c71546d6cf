#include "staticnet/runtime/inference/cuda_inference.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <utility>

#include "staticnet/cuda/check.hpp"
#include "staticnet/cuda/device.hpp"
#include "staticnet/print.hpp"
#include "staticnet/runtime/inference/infer.hpp"

namespace staticnet::runtime {

using cuda::check;

namespace {

std::size_t bytes_of(std::int64_t floats) {
  return static_cast<std::size_t>(floats) * sizeof(float);
}

}  // namespace

CudaInference::CudaInference(const InferenceModel& model, CudaInferenceFactory make, int device)
    : model_(model) {
  try {
    set_up(make, device);
  } catch (...) {
    release();  // the destructor does not run for an object whose constructor threw
    throw;
  }
}

void CudaInference::set_up(CudaInferenceFactory make, int device) {
  graphs_ = cuda::graphs_allowed();
  if (!make)
    throw std::invalid_argument("CudaInference: the generated entry point is missing");
  const cuda::OpenedDevice opened = cuda::open_device(device, "program");
  device_name_ = opened.name;
  sm_ = opened.sm;
  total_ = opened.total;
  context_ = opened.in_use;

  check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate");
  arena_ = cuda::allocate_arena(model_.arena_bytes, arena_measured_);

  const std::int64_t before_libraries = cuda::device_memory_in_use();
  pass_ = make(arena_, stream_);
  check(cudaStreamSynchronize(stream_), "setting up the forward pass");
  libraries_ = cuda::device_memory_in_use() - before_libraries;

  const std::size_t input = bytes_of(model_.batch * model_.sample_elements());
  const std::size_t output = bytes_of(model_.batch * model_.output_elements());
  check(cudaHostAlloc(reinterpret_cast<void**>(&pinned_input_), input, cudaHostAllocDefault),
        "allocating pinned input memory");
  std::memset(pinned_input_, 0, input);
  check(cudaHostAlloc(reinterpret_cast<void**>(&pinned_output_), output, cudaHostAllocDefault),
        "allocating pinned output memory");
  std::memset(pinned_output_, 0, output);
}

CudaInference::~CudaInference() {
  release();
}

void CudaInference::release() noexcept {
  if (stream_)
    cudaStreamSynchronize(stream_);
  replay_.reset();
  pass_.reset();
  if (pinned_input_)
    cudaFreeHost(std::exchange(pinned_input_, nullptr));
  if (pinned_output_)
    cudaFreeHost(std::exchange(pinned_output_, nullptr));
  if (arena_)
    cudaFree(std::exchange(arena_, nullptr));
  if (stream_)
    cudaStreamDestroy(std::exchange(stream_, nullptr));
}

std::string CudaInference::description() const {
  return fmt::format("CUDA, {} (sm_{}), {}", device_name_, sm_,
                     graphs_ ? "one CUDA graph per batch" : "launch by launch");
}

std::string CudaInference::arena_where() const {
  return fmt::format("device memory, one cudaMalloc (the device's free memory fell by {})",
                     to_string(Bytes{arena_measured_}));
}

std::string CudaInference::other_memory() const {
  return fmt::format(
      "CUDA context {} and cuDNN + cuBLASLt {} (cudaMemGetInfo, of {} on the device); pinned "
      "host memory {} (the batch's input and output)",
      to_string(Bytes{context_}), to_string(Bytes{libraries_}), to_string(Bytes{total_}),
      to_string(Bytes{static_cast<std::int64_t>(
          bytes_of(model_.batch * (model_.sample_elements() + model_.output_elements())))}));
}

void CudaInference::load(std::span<const float> parameters, std::span<const float> non_trainable) {
  if (loaded_)
    throw std::logic_error("CudaInference::load: the weights are loaded (and folded) already");
  check_load_sizes(model_, parameters, non_trainable, "CudaInference");
  // On the pass's stream, so that the fold is ordered after the copies: a plain cudaMemcpy from
  // pageable memory may return before its data reach the device, and the stream does not wait
  // for the default one.
  check(cudaMemcpyAsync(arena_ + model_.parameters_at, parameters.data(), parameters.size_bytes(),
                        cudaMemcpyHostToDevice, stream_),
        "copying the weights to the device");
  if (model_.non_trainable_count > 0)
    check(cudaMemcpyAsync(arena_ + model_.non_trainable_at, non_trainable.data(),
                          non_trainable.size_bytes(), cudaMemcpyHostToDevice, stream_),
          "copying the running statistics to the device");
  pass_->fold_batch_norms();
  check(cudaStreamSynchronize(stream_), "folding the BatchNorms");
  loaded_ = true;
}

std::span<float> CudaInference::input() {
  return {pinned_input_, static_cast<std::size_t>(model_.batch * model_.sample_elements())};
}

// The batch in, the forward pass, the output back: all on the stream, nothing waited for.
void CudaInference::enqueue_pass() {
  check(cudaMemcpyAsync(arena_ + model_.input_at, pinned_input_,
                        bytes_of(model_.batch * model_.sample_elements()), cudaMemcpyHostToDevice,
                        stream_),
        "copying the batch to the device");
  pass_->infer();
  check(cudaMemcpyAsync(pinned_output_, arena_ + model_.output_at,
                        bytes_of(model_.batch * model_.output_elements()), cudaMemcpyDeviceToHost,
                        stream_),
        "copying the output back");
}

void CudaInference::run() {
  if (!loaded_)
    throw std::logic_error("CudaInference::run: load the weights first");
  replay_.run(stream_, graphs_, "the forward pass", [this] { enqueue_pass(); });
  // The loop reads the output next: wait for it here (the pass is the whole batch's work).
  check(cudaStreamSynchronize(stream_), "running the forward pass");
}

std::span<const float> CudaInference::output() {
  return {pinned_output_, static_cast<std::size_t>(model_.batch * model_.output_elements())};
}

int infer_main(int argc, char** argv, const InferenceModel& model, CudaInferenceFactory make) {
  return infer_main(
      argc, argv, model,
      InferenceProgram{"CUDA GPU", false, [&](int) -> std::unique_ptr<InferenceBackend> {
                         return std::make_unique<CudaInference>(model, make);
                       }});
}

}  // namespace staticnet::runtime
