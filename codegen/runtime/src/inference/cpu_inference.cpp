#include "staticnet/runtime/inference/cpu_inference.hpp"

#include <algorithm>
#include <cstring>
#include <new>
#include <stdexcept>

namespace staticnet::runtime {
namespace {
constexpr std::align_val_t arena_alignment{256};

std::int64_t product(const std::vector<std::int64_t>& shape) {
  std::int64_t n = 1;
  for (auto d : shape)
    n *= d;
  return n;
}
}  // namespace

std::int64_t InferenceModel::sample_elements() const {
  return product(sample_shape);
}
std::int64_t InferenceModel::output_elements() const {
  return product(output_shape);
}

void CpuInference::AlignedFree::operator()(std::byte* p) const noexcept {
  ::operator delete[](p, arena_alignment);
}

CpuInference::CpuInference(const InferenceModel& model, CpuInferenceSteps steps, int threads)
    : model_(model),
      steps_(steps),
      arena_(static_cast<std::byte*>(
          ::operator new[](static_cast<std::size_t>(model.arena_bytes), arena_alignment))),
      pool_(threads) {
  if (!steps.fold_batch_norms || !steps.infer)
    throw std::invalid_argument("CpuInference: the generated entry points are missing");
  std::memset(arena_.get(), 0, static_cast<std::size_t>(model.arena_bytes));
}

std::string CpuInference::description() const {
  return "CPU, " + std::to_string(pool_.threads()) +
         (pool_.threads() == 1 ? " thread" : " threads") + ", OpenBLAS";
}

std::span<float> CpuInference::floats(std::int64_t offset, std::int64_t count) {
  return {reinterpret_cast<float*>(arena_.get() + offset), static_cast<std::size_t>(count)};
}

void CpuInference::load(std::span<const float> parameters, std::span<const float> non_trainable) {
  if (loaded_)
    throw std::logic_error("CpuInference::load: the weights are loaded (and folded) already");
  if (std::ssize(parameters) != model_.parameter_count ||
      std::ssize(non_trainable) != model_.non_trainable_count)
    throw std::invalid_argument("CpuInference::load: expected " +
                                std::to_string(model_.parameter_count) + " parameters and " +
                                std::to_string(model_.non_trainable_count) +
                                " running statistics, got " + std::to_string(parameters.size()) +
                                " and " + std::to_string(non_trainable.size()));
  std::ranges::copy(parameters, floats(model_.parameters_at, model_.parameter_count).begin());
  if (model_.non_trainable_count > 0)
    std::ranges::copy(non_trainable,
                      floats(model_.non_trainable_at, model_.non_trainable_count).begin());
  steps_.fold_batch_norms(arena_.get(), pool_);
  loaded_ = true;
}

std::span<float> CpuInference::input() {
  return floats(model_.input_at, model_.batch * model_.sample_elements());
}

void CpuInference::run() {
  if (!loaded_)
    throw std::logic_error("CpuInference::run: load the weights first");
  steps_.infer(arena_.get(), pool_);
}

std::span<const float> CpuInference::output() {
  return floats(model_.output_at, model_.batch * model_.output_elements());
}

}  // namespace staticnet::runtime
