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

}  // namespace staticnet::codegen
