#include "staticnet/codegen/model_view.hpp"

#include <stdexcept>

namespace staticnet::codegen {

const Buffer* ModelView::find(BufferRole role) const {
  for (const Buffer& b : buffers)
    if (b.role == role)
      return &b;
  return nullptr;
}

std::int64_t ModelView::forward_step(std::int64_t layer) const {
  for (std::size_t s = 0; s < schedule.size(); ++s)
    if (schedule[s].kind == StepKind::forward && schedule[s].layer == layer)
      return static_cast<std::int64_t>(s);
  throw std::logic_error("no forward step for layer " + std::to_string(layer));
}

std::int64_t ModelView::backward_step(std::int64_t layer) const {
  for (std::size_t s = 0; s < schedule.size(); ++s)
    if (schedule[s].kind == StepKind::backward && schedule[s].layer == layer)
      return static_cast<std::int64_t>(s);
  throw std::logic_error("no backward step for layer " + std::to_string(layer));
}

std::int64_t ModelView::loss_step() const {
  for (std::size_t s = 0; s < schedule.size(); ++s)
    if (schedule[s].kind == StepKind::loss)
      return static_cast<std::int64_t>(s);
  return -1;
}

std::vector<Access> ModelView::accesses_of(std::int64_t step) const {
  const auto s = static_cast<std::size_t>(step);
  const auto first = static_cast<std::size_t>(schedule.at(s).first_access);
  const std::size_t end = s + 1 < schedule.size()
                              ? static_cast<std::size_t>(schedule[s + 1].first_access)
                              : accesses.size();
  return {accesses.begin() + static_cast<std::ptrdiff_t>(first),
          accesses.begin() + static_cast<std::ptrdiff_t>(end)};
}

}  // namespace staticnet::codegen
