#include "staticnet/codegen/arena_text.hpp"

#include <stdexcept>

#include "staticnet/codegen/naming.hpp"
#include "staticnet/codegen/printer.hpp"
#include "staticnet/codegen/section_text.hpp"
#include "staticnet/codegen/text.hpp"

namespace staticnet::codegen {

void require_parameters(const ModelView& model) {
  if (model.parameter_count == 0)
    throw std::invalid_argument(model.names.model_type + " has no parameters: there is nothing " +
                                (model.training() ? "to train" : "to load"));
}

const Buffer& ArenaText::role(BufferRole r) const {
  const Buffer* b = m_.find(r);
  if (!b)
    throw std::logic_error(std::string("the plan has no ") + name_of(r) + " buffer");
  return *b;
}

int ArenaText::loss_gradient() const {
  for (std::size_t i = 0; i < m_.buffers.size(); ++i)
    if (buffer_name(m_, static_cast<int>(i)) == "loss_gradient")
      return static_cast<int>(i);
  throw std::logic_error("the plan has no loss gradient buffer");
}

std::string ArenaText::at(int buffer) {
  const ElementAccess a = access_for(element_type(m_, buffer));
  used_.insert(a.accessor);
  const std::string first =
      std::string(a.accessor) + "(arena, " + literal(m_.buffer(buffer).offset) + ")";
  return sliced(buffer) ? first + " + micro * " + literal(slice_elements(buffer)) : first;
}

bool ArenaText::sliced(int buffer) const {
  if (m_.setup.micro_batches == 1)
    return false;
  switch (m_.buffer(buffer).role) {
    case BufferRole::input:
    case BufferRole::labels:
    case BufferRole::targets:
    case BufferRole::loss:
    case BufferRole::predictions:
      return true;
    default:
      return false;
  }
}

std::int64_t ArenaText::slice_elements(int buffer) const {
  return m_.buffer(buffer).elements() / m_.setup.micro_batches;
}

std::string ArenaText::bytes(int buffer) {
  used_.insert("bytes");
  return "bytes(arena, " + literal(m_.buffer(buffer).offset) + ")";
}

std::string ArenaText::loss_scale() {
  used_.insert("loss_scale");
  return "loss_scale(arena, " + literal(role(BufferRole::loss_scale).offset) + ")";
}

std::string ArenaText::parameter(std::int64_t element_offset, BufferRole region) {
  const Buffer& b = role(region);
  const ElementAccess a = access_for(name_of(b.dtype));  // f32, or the working copy's bf16 / f16
  used_.insert(a.accessor);
  return std::string(a.accessor) + "(arena, " +
         literal(b.offset + bytes_of(b.dtype, element_offset)) + ")";
}

std::string ArenaText::element(int buffer) const {
  return access_for(element_type(m_, buffer)).type;
}

std::string ArenaText::note(int buffer) const {
  return "// " + buffer_name(m_, buffer);
}

std::string ArenaText::accessor_definitions() const {
  const struct {
    const char* name;
    const char* type;
  } accessors[] = {{"bytes", "std::byte"},      {"f32", "float"},
                   {"bf16", "k::BF16"},         {"f16", "k::F16"},
                   {"i32", "std::int32_t"},     {"u8", "k::WindowIndex8"},
                   {"u16", "k::WindowIndex16"}, {"u32", "k::WindowIndex32"},
                   {"bits", "k::MaskByte"},     {"loss_scale", "k::LossScaleState"}};
  Printer p;
  for (const auto& a : accessors)
    if (used_.count(a.name))
      p.emit({{"name", a.name}, {"type", a.type}}, R"(
        $type$* $name$(std::byte* arena, std::int64_t offset) {
          return reinterpret_cast<$type$*>(arena + offset);
        }
      )");
  return p.text();
}

GroupOrder group_order(const ModelView& model, const std::vector<FusedGroup>& groups) {
  // A group runs forward at its first layer's step and backward at its last layer's; recomputed,
  // at its first layer's recompute step (fuse() groups no layer recomputed with one that is not).
  auto group_of = [&](std::int64_t layer_index) -> const FusedGroup& {
    for (const FusedGroup& g : groups)
      if (g.first <= layer_index && layer_index <= g.last)
        return g;
    throw std::logic_error("layer in no group");
  };
  GroupOrder order;
  for (const Step& s : model.schedule) {
    if (s.kind == StepKind::forward) {
      const FusedGroup& g = group_of(s.layer);
      if (s.layer == g.first)
        order.forward.push_back(&g);
    } else if (s.kind == StepKind::backward) {
      const FusedGroup& g = group_of(s.layer);
      if (s.layer != g.last)
        continue;
      if (has_backward(model, g))
        order.backward.push_back({&g, false});
    } else if (s.kind == StepKind::recompute) {
      const FusedGroup& g = group_of(s.layer);
      if (s.layer == g.first && g.view < 0)  // a view runs no code
        order.backward.push_back({&g, true});
    }
  }
  return order;
}

}  // namespace staticnet::codegen
