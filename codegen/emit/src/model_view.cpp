#include "staticnet/codegen/model_view.hpp"

namespace staticnet::codegen {

const Buffer* ModelView::find(BufferRole role) const {
  for (const Buffer& b : buffers)
    if (b.role == role)
      return &b;
  return nullptr;
}

bool ModelView::recomputes_any() const {
  for (const LayerPlan& l : layers)
    if (l.recomputed)
      return true;
  return false;
}

ModelView as_backward_sees(const ModelView& model) {
  ModelView view = model;
  auto again = [&](int& b) { b = recomputed_or_same(model.buffers, b); };
  for (LayerPlan& l : view.layers) {
    again(l.input_buffer);
    again(l.input2_buffer);
    again(l.output_buffer);
    again(l.window_index_buffer);
    again(l.mask_buffer);
  }
  return view;
}

}  // namespace staticnet::codegen
