#include "staticnet/runtime/inference/cpu_inference.hpp"

#include <algorithm>
#include <stdexcept>

namespace staticnet::runtime {
namespace {

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

CpuInference::CpuInference(const InferenceModel& model, CpuInferenceSteps steps, int threads)
    : model_(model), steps_(steps), arena_(model.arena_bytes), pool_(threads) {
  if (!steps.fold_batch_norms || !steps.infer)
    throw std::invalid_argument("CpuInference: the generated entry points are missing");
}

std::string CpuInference::description() const {
  return cpu_description(pool_.threads());
}

std::string CpuInference::arena_where() const {
  return "host memory, 256-byte aligned (one allocation)";
}

void check_load_sizes(const InferenceModel& model, std::span<const float> parameters,
                      std::span<const float> non_trainable, const char* who) {
  if (std::ssize(parameters) != model.parameter_count ||
      std::ssize(non_trainable) != model.non_trainable_count)
    throw std::invalid_argument(std::string(who) + "::load: expected " +
                                std::to_string(model.parameter_count) + " parameters and " +
                                std::to_string(model.non_trainable_count) +
                                " running statistics, got " + std::to_string(parameters.size()) +
                                " and " + std::to_string(non_trainable.size()));
}

std::span<float> CpuInference::floats(std::int64_t offset, std::int64_t count) {
  return {reinterpret_cast<float*>(arena_.data() + offset), static_cast<std::size_t>(count)};
}

void CpuInference::load(std::span<const float> parameters, std::span<const float> non_trainable) {
  if (loaded_)
    throw std::logic_error("CpuInference::load: the weights are loaded (and folded) already");
  check_load_sizes(model_, parameters, non_trainable, "CpuInference");
  std::ranges::copy(parameters, floats(model_.parameters_at, model_.parameter_count).begin());
  if (model_.non_trainable_count > 0)
    std::ranges::copy(non_trainable,
                      floats(model_.non_trainable_at, model_.non_trainable_count).begin());
  steps_.fold_batch_norms(arena_.data(), pool_);
  loaded_ = true;
}

std::span<float> CpuInference::input() {
  return floats(model_.input_at, model_.batch * model_.sample_elements());
}

void CpuInference::run() {
  if (!loaded_)
    throw std::logic_error("CpuInference::run: load the weights first");
  steps_.infer(arena_.data(), pool_);
}

std::span<const float> CpuInference::output() {
  return floats(model_.output_at, model_.batch * model_.output_elements());
}

}  // namespace staticnet::runtime
