// The CPU rendering of the families described once in families/ (an activation, a pool, the
// global average pool, a residual sum, Dropout): each pass is a loop over its index space split
// across the thread pool (staticnet/cpu/launch.hpp), running the described call at every point.
#include "emitter.hpp"

namespace staticnet::codegen {
namespace {

// "c::for_each_2d(pool, 2'048, 256, [&](index_t plane, index_t q) {"
std::string loop_open(const MapPass& pass) {
  static const char* const launchers[] = {"c::for_each", "c::for_each_2d", "c::for_each_3d"};
  std::string open = std::string(launchers[pass.axes.size() - 1]) + "(pool";
  for (std::int64_t extent : pass.extents)
    open += ", " + literal(extent);
  return open + ", [&](" + axis_parameters(pass) + ") {";
}

std::string identity_text(const IdentityCopy& copy) {
  return copy.in_place ? "// in place: " + copy.to + " is " + copy.from
                       : "std::copy(" + copy.from + ", " + copy.from + " + " +
                             literal(copy.elements) + ", " + copy.to + ");";
}

}  // namespace

void CpuKernelEmitter::emit_map_group(const FusedGroup& g) {
  const GroupPasses d = describe_map_group(m_, g, a_);
  if (!d.no_code.empty()) {
    body_.line(d.no_code);
    body_.blank();
    return;
  }
  if (!d.preamble.empty()) {
    body_.line(d.preamble);
    body_.blank();
  }
  if (d.forward)
    emit_direction("forward_" + group_name(g), *d.forward);
  if (d.backward)
    emit_direction("backward_" + group_name(g), *d.backward);
}

void CpuKernelEmitter::emit_direction(const std::string& function, const Direction& d) {
  // A direction that differs between training and evaluation (a Dropout) reads the forward
  // pass's flags; one that only copies uses no thread.
  const bool evaluation_differs = d.identity && !d.passes.empty();
  const std::string parameters = evaluation_differs ? "std::byte* arena, c::ThreadPool& pool, "
                                                      "const Pass& pass"
                                 : d.passes.empty() ? "std::byte* arena, c::ThreadPool&"
                                                    : "std::byte* arena, c::ThreadPool& pool";
  body_.line("void " + function + "(" + parameters + ") {");
  body_.indent();
  for (const TensorUse& t : d.tensors)
    body_.line(tensor_declaration(t));
  if (evaluation_differs) {
    body_.emit({{"identity", identity_text(*d.identity)}}, R"(
      if (!pass.training) {  // evaluation: the identity
        $identity$
        return;
      }
    )");
  } else if (d.identity) {
    body_.line(identity_text(*d.identity));
  }
  if (d.dropout_layer >= 0)
    body_.line("const std::uint64_t key = k::dropout_key(pass.seed, pass.step, " +
               std::to_string(d.dropout_layer) + ");");
  for (const MapPass& pass : d.passes) {
    body_.line(wrap_comment(pass.comment, "// ", "// "));
    body_.emit({{"loop", loop_text(loop_open(pass), {pass.call}, 2)}}, "$loop$\n");
  }
  body_.outdent();
  body_.line("}");
  body_.blank();
}

}  // namespace staticnet::codegen
