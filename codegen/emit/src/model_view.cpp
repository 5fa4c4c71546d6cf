#include "staticnet/codegen/model_view.hpp"

namespace staticnet::codegen {

const Buffer* ModelView::find(BufferRole role) const {
  for (const Buffer& b : buffers)
    if (b.role == role)
      return &b;
  return nullptr;
}

}  // namespace staticnet::codegen
