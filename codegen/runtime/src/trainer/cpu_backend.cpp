#include "staticnet/runtime/trainer/cpu_backend.hpp"

#include <fmt/format.h>

#include <cstring>
#include <new>
#include <stdexcept>
#include <string>

#include "staticnet/print.hpp"

namespace staticnet::runtime {

CpuBackend::CpuBackend(const ModelInfo& model, CpuSteps steps, int threads)
    : model_(model), steps_(steps), arena_(model.arena.bytes), pool_(threads) {
  if (!steps.train_step || !steps.evaluate)
    throw std::invalid_argument("CpuBackend: the generated step functions are missing");
  if (model.arena.loss_scale_at >= 0)
    write_loss_scale(kernels::initial_loss_scale(kernels::LossScaleSettings{}));
}

std::string CpuBackend::description() const {
  return cpu_description(pool_.threads());
}

template <class T>
std::span<T> CpuBackend::view(std::int64_t offset, std::int64_t count) {
  if (offset < 0)
    return {};
  return {reinterpret_cast<T*>(arena_.data() + offset), static_cast<std::size_t>(count)};
}

std::span<float> CpuBackend::batch_inputs() {
  return view<float>(model_.arena.input_at, model_.batch * model_.sample_elements());
}
std::span<std::int32_t> CpuBackend::batch_labels() {
  return view<std::int32_t>(model_.arena.labels_at, model_.batch);
}
std::span<float> CpuBackend::batch_targets() {
  return view<float>(model_.arena.targets_at, model_.batch * model_.target_elements());
}

void CpuBackend::train_step(const kernels::OptimizerConstants& constants) {
  steps_.train_step(arena_.data(), constants, pool_);
}
void CpuBackend::evaluate() {
  steps_.evaluate(arena_.data(), pool_);
}

std::span<const float> CpuBackend::losses() {
  return view<float>(model_.arena.loss_at, model_.batch);
}
std::span<const std::int32_t> CpuBackend::predictions() {
  return view<std::int32_t>(model_.arena.predictions_at, model_.batch);
}

std::span<float> CpuBackend::state(StateBuffer which) {
  const std::int64_t at = state_at(model_.arena, which);
  if (at < 0)
    throw std::logic_error("CpuBackend: the model keeps no such state");
  return view<float>(at, state_elements(model_, which));
}

void CpuBackend::read_state(StateBuffer which, std::span<float> out) {
  const auto s = state(which);
  if (out.size() != s.size())
    throw std::invalid_argument("CpuBackend::read_state: wrong size");
  std::memcpy(out.data(), s.data(), s.size_bytes());
}

void CpuBackend::write_state(StateBuffer which, std::span<const float> in) {
  const auto s = state(which);
  if (in.size() != s.size())
    throw std::invalid_argument("CpuBackend::write_state: wrong size");
  std::memcpy(s.data(), in.data(), s.size_bytes());
}

std::optional<kernels::LossScaleState> CpuBackend::loss_scale() {
  if (model_.arena.loss_scale_at < 0)
    return std::nullopt;
  kernels::LossScaleState s;
  std::memcpy(&s, arena_.data() + model_.arena.loss_scale_at, sizeof s);
  return s;
}

void CpuBackend::write_loss_scale(const kernels::LossScaleState& state) {
  if (model_.arena.loss_scale_at < 0)
    throw std::logic_error("CpuBackend: the model has no loss scaler");
  std::memcpy(arena_.data() + model_.arena.loss_scale_at, &state, sizeof state);
}

MemoryReport CpuBackend::memory() const {
  MemoryReport r;
  r.planned = model_.arena.bytes;
  r.arena = model_.arena.bytes;  // the one allocation above, of exactly this size
  r.arena_where = "host memory, one 256-byte-aligned allocation";
  r.host_arena = model_.arena.bytes;
  if (model_.arena.next_batch_at >= 0)  // the loader writes each batch in place between steps
    r.other = fmt::format(
        "the plan's next_batch ({}, Prefetch) is for the CUDA trainer: this one "
        "leaves it unused",
        to_string(Bytes{model_.arena.batch_bytes}));
  return r;
}

}  // namespace staticnet::runtime
