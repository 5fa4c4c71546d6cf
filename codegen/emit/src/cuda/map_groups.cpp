// The CUDA rendering of the families described once in families/ (an activation, a pool, the
// global average pool, a residual sum, Dropout): each pass is one thread per point of its index
// space (staticnet/cuda/launch.hpp), running the described call, the same text as the CPU's.
#include "emitter.hpp"

namespace staticnet::codegen {
namespace {

// "g::for_each_2d<2'048, 256>(stream, \"forward_layer_2\", [=] __device__(index_t plane, index_t q)
// {"
std::string launch_open(const MapPass& pass, const std::string& what) {
  static const char* const launchers[] = {"g::for_each", "g::for_each_2d", "g::for_each_3d"};
  std::string extents;
  for (std::int64_t extent : pass.extents)
    extents += (extents.empty() ? "" : ", ") + literal(extent);
  return std::string(launchers[pass.axes.size() - 1]) + "<" + extents + ">(stream, \"" + what +
         "\", [=] __device__(" + axis_parameters(pass) + ") {";
}

std::string identity_text(const IdentityCopy& copy) {
  return copy.in_place ? "// in place: " + copy.to + " is " + copy.from
                       : "g::check(cudaMemcpyAsync(" + copy.to + ", " + copy.from + ", " +
                             literal(copy.bytes) + ", cudaMemcpyDeviceToDevice, stream), \"" +
                             copy.label + "\");";
}

}  // namespace

void CudaKernelEmitter::emit_map_group(const FusedGroup& g) {
  const GroupPasses d = describe_map_group(m_, g, a_);
  if (!d.no_code.empty()) {
    kernels_.line(d.no_code);
    kernels_.blank();
    return;
  }
  if (!d.preamble.empty()) {
    kernels_.line(d.preamble);
    kernels_.blank();
  }
  if (d.forward)
    emit_direction("forward_" + group_name(g), *d.forward);
  if (d.backward)
    emit_direction("backward_" + group_name(g), *d.backward);
}

void CudaKernelEmitter::emit_direction(const std::string& function, const Direction& d) {
  // A direction that differs between training and evaluation (a Dropout) takes the flag.
  const bool evaluation_differs = d.identity && !d.passes.empty();
  kernels_.line("void " + function + "(std::byte* arena, const Libraries&, cudaStream_t stream" +
                (evaluation_differs ? ", bool training) {" : ") {"));
  kernels_.indent();
  for (const TensorUse& t : d.tensors)
    kernels_.line(tensor_declaration(t));
  if (evaluation_differs) {
    kernels_.emit({{"identity", identity_text(*d.identity)}}, R"(
      if (!training) {  // evaluation: the identity
        $identity$
        return;
      }
    )");
  } else if (d.identity) {
    kernels_.line(identity_text(*d.identity));
  }
  for (std::size_t p = 0; p < d.passes.size(); ++p) {
    const MapPass& pass = d.passes[p];
    std::vector<std::string> body;
    // The step and the seed come from optimizer_constants, on the device, so the captured graph
    // draws each step's masks.
    if (d.dropout_layer >= 0)
      body.push_back(
          "const std::uint64_t key = k::dropout_key(optimizer_constants.seed, "
          "optimizer_constants.step, " +
          std::to_string(d.dropout_layer) + ");");
    body.push_back(pass.call);
    const std::string what =
        function + (d.passes.size() > 1 ? " (pass " + std::to_string(p + 1) + ")" : "");
    kernels_.line(wrap_comment(pass.comment, "// ", "// "));
    kernels_.emit({{"loop", loop_text(launch_open(pass, what), body, 2)}}, "$loop$\n");
  }
  kernels_.outdent();
  kernels_.line("}");
  kernels_.blank();
}

}  // namespace staticnet::codegen
