// The CUDA rendering of what families/ describes once for every backend (an activation, a pool,
// the global average pool, a residual sum, Dropout, a Flatten's gradient, the loss, the update
// and the inference folds): each pass is one thread per point of its index space
// (staticnet/cuda/launch.hpp), running the described call, the same text as the CPU's.
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

// The statements of a direction: its passes, launched on `stream`, over its tensors (declared
// first where `declare`, else the parameters of the function around it). `what` names the
// passes in a launch error. A direction that differs between training and evaluation
// (a Dropout) reads `training`, a parameter of the function around it. The step's scalars (the
// update's, a Dropout's seed and step) come from optimizer_constants, on the device, so the
// captured graph reads each step's.
std::string direction_body(const Direction& d, const std::string& what, bool declare) {
  Printer out;
  if (declare)
    for (const TensorUse& t : d.tensors)
      out.line(tensor_declaration(t));
  if (d.identity && !d.passes.empty()) {
    out.emit({{"identity", identity_text(*d.identity)}}, R"(
      if (!training) {  // evaluation: the identity
        $identity$
        return;
      }
    )");
  } else if (d.identity) {
    out.line(identity_text(*d.identity));
  }
  for (std::size_t p = 0; p < d.passes.size(); ++p) {
    const MapPass& pass = d.passes[p];
    std::vector<std::string> body;
    if (d.dropout_layer >= 0)
      body.push_back(
          "const std::uint64_t key = k::dropout_key(optimizer_constants.seed, "
          "optimizer_constants.step, " +
          std::to_string(d.dropout_layer) + ");");
    if (d.reads_constants)
      body.push_back("const k::OptimizerConstants& constants = optimizer_constants;");
    body.push_back(pass.call);
    const std::string pass_what =
        what + (d.passes.size() > 1 ? " (pass " + std::to_string(p + 1) + ")" : "");
    out.line(wrap_comment(pass.comment, "// ", "// "));
    out.emit({{"loop", loop_text(launch_open(pass, pass_what), body)}}, "$loop$\n");
  }
  std::string text = out.text();
  text.pop_back();  // the function's template ends the last line
  return text;
}

}  // namespace

void CudaKernelEmitter::emit_function(const std::string& name, bool takes_libraries,
                                      bool takes_training, const Direction& d) {
  const std::string trailing = takes_training ? ", bool training" : "";
  kernels_.emit({{"name", name},
                 {"tensors", tensor_parameters(d)},
                 {"trailing", trailing},
                 {"libraries", takes_libraries ? ", const Libraries&" : ""},
                 {"expects", expectations_comment(d)},
                 {"body", direction_body(d, name, false)},
                 {"call", plan_call(name, d, takes_training ? "stream, training" : "stream")}},
                R"(
    $expects$void $name$($tensors$, cudaStream_t stream$trailing$) {
      $body$
    }

    // The same on the plan's buffers:
    void $name$(std::byte* arena$libraries$, cudaStream_t stream$trailing$) {
      $call$
    }

  )");
}

void CudaKernelEmitter::emit_map_group(const FusedGroup& g) {
  const GroupPasses d = describe_map_group(m_, g, a_);
  if (!write_preamble(kernels_, d))
    return;
  // A direction that differs between training and evaluation (a Dropout) takes the flag.
  if (const std::optional<Direction>& f = d.forward)
    emit_function("forward_" + group_name(g), true, f->identity && !f->passes.empty(), *f);
  if (d.backward)
    emit_function("backward_" + group_name(g), true, false, *d.backward);
}

void CudaKernelEmitter::emit_view(const FusedGroup& g) {
  kernels_.line(view_comment(m_, g));
  kernels_.blank();
  if (const std::optional<Direction> d = describe_view_backward(m_, g, a_))
    emit_function("backward_" + group_name(g), true, false, *d);
}

void CudaKernelEmitter::emit_loss() {
  kernels_.line(loss_heading(m_));
  emit_function("loss_step", false, false, describe_loss(m_, a_));
}

void CudaKernelEmitter::emit_update() {
  kernels_.line(update_heading(m_));
  emit_function("update", false, false, describe_update(m_, a_));
}

std::string CudaKernelEmitter::emit_fold(const FusedGroup& g) {
  const Fold f = describe_fold(m_, g, a_);
  Printer p;
  p.emit({{"heading", f.heading},
          {"body", direction_body(f.direction, "fold_" + group_name(g), true)}},
         R"(
    // $heading$
    {
      $body$
    }
  )");
  return p.text();
}

}  // namespace staticnet::codegen
