// The CUDA rendering of what families/ describes once for every backend (every layer family but the
// products, and the step's own passes: a Flatten's gradient, the loss, the update and the
// inference folds): each pass is one thread per point of its index space
// (staticnet/cuda/launch.hpp), running the described call, or for a sum a block of threads per
// point (staticnet/cuda/channel_sums.hpp).
#include "emitter.hpp"

namespace staticnet::codegen {
namespace {

// A pass as its launch: "g::for_each_2d<2'048, 256>(stream, \"forward_layer_2\",
// [] __device__(index_t plane, index_t q, const float* x, float* y) {", its statements, then
// "}, x, y);". The tensors the call names go to the kernel as its arguments (__restrict__ there;
// one that shares memory with another of them, a layer in place, as g::aliased), not captured by
// the lambda. A sum is "g::for_each_block<64>(...", a block of threads per point.
std::string launch_text(const MapPass& pass, const Direction& d, const std::string& what,
                        const std::vector<std::string>& body) {
  static const char* const launchers[] = {"g::for_each", "g::for_each_2d", "g::for_each_3d"};
  std::string extents;
  for (std::int64_t extent : pass.device.extents)
    extents += (extents.empty() ? "" : ", ") + literal(extent);
  const std::string launcher =
      pass.per_block ? "g::for_each_block" : launchers[pass.device.axes.size() - 1];
  // The tensors this pass names; whether two share memory matters within the one kernel only.
  Direction used;
  for (const TensorUse& t : d.tensors)
    if (names_word(pass.device.call, t.name))
      used.tensors.push_back(t);
  std::string parameters = axis_parameters(pass.device.axes), arguments;
  for (const TensorUse& t : used.tensors) {
    parameters += ", " + tensor_parameter(used, t, false);
    arguments += ", " + (shares_memory(used, t) ? "g::aliased(" + t.name + ")" : t.name);
  }
  if (d.dropout_slice_elements > 0) {  // the micro-batch whose masks the key draws
    parameters += ", index_t micro";
    arguments += ", micro";
  }
  return loop_text(
      launcher + "<" + extents + ">(stream, \"" + what + "\", [] __device__(" + parameters + ") {",
      body, "}" + arguments + ");");
}

std::string identity_text(const IdentityCopy& copy) {
  return copy.in_place ? "// in place: " + copy.to + " is " + copy.from
                       : "g::check(cudaMemcpyAsync(" + copy.to + ", " + copy.from + ", " +
                             literal(copy.bytes) + ", cudaMemcpyDeviceToDevice, stream), \"" +
                             copy.label + "\");";
}

}  // namespace

std::string device_statements(const Direction& d, const std::string& what, bool declare) {
  // Each pass below its comment, numbered in its label where there are several. The step's
  // scalars come from optimizer_constants inside each kernel.
  auto write_passes = [&](Printer& out, const std::vector<MapPass>& passes,
                          const std::string& label) {
    for (std::size_t p = 0; p < passes.size(); ++p) {
      const MapPass& pass = passes[p];
      std::vector<std::string> body;
      if (d.dropout_layer >= 0) {
        // Under Accumulate<K>, moved to the micro-batch's first element (k::dropout_slice_key).
        std::string key = "k::dropout_key(optimizer_constants.seed, optimizer_constants.step, " +
                          std::to_string(d.dropout_layer) + ")";
        if (d.dropout_slice_elements > 0)
          key = "k::dropout_slice_key(" + key + ", micro * " + literal(d.dropout_slice_elements) +
                ")";
        body.push_back("const std::uint64_t key = " + key + ";");
      }
      if (d.reads_constants)
        body.push_back("const k::OptimizerConstants& constants = optimizer_constants;");
      body.push_back(pass.device.call);
      const std::string pass_what =
          label + (passes.size() > 1 ? " (pass " + std::to_string(p + 1) + ")" : "");
      out.line(wrap_comment(pass.comment, "// ", "// "));
      out.emit({{"loop", launch_text(pass, d, pass_what, body)}}, "$loop$\n");
    }
  };
  return direction_statements(d, declare, what,
                              {.training = "training",
                               .identity = identity_text,
                               .passes = write_passes,
                               .before_training = ""});
}

std::string device_pass(const MapPass& pass, const Direction& d, const std::string& what) {
  return wrap_comment(pass.comment, "// ", "// ") + "\n" +
         launch_text(pass, d, what, {pass.device.call});
}

void CudaKernelEmitter::emit_function(const std::string& name, bool takes_libraries,
                                      bool takes_training, const Direction& d) {
  const std::string training = takes_training ? ", bool training" : "";
  // A Dropout under Accumulate<K> draws the micro-batch's masks (device_statements).
  const bool micro = d.dropout_slice_elements > 0;
  write_function_pair(
      kernels_, a_, name, d, device_statements(d, name, false),
      "cudaStream_t stream" + training + (micro ? ", index_t micro" : ""),
      std::string(takes_libraries ? "const Libraries&, " : "") + "cudaStream_t stream" + training,
      std::string(takes_training ? "stream, training" : "stream") + (micro ? ", micro" : ""),
      /*restrict_qualified=*/true);
}

void CudaKernelEmitter::emit_recompute(const FusedGroup& g, bool takes_training,
                                       const GroupPasses& back) {
  const std::string name = group_name(g);
  const std::string training = takes_training ? ", bool training" : "";
  if (back.recompute) {
    const Direction& d = *back.recompute;
    write_function_pair(kernels_, a_, "recompute_" + name, d,
                        device_statements(d, "recompute_" + name, false),
                        "cudaStream_t stream" + std::string(takes_training ? ", bool" : ""),
                        "const Libraries&, cudaStream_t stream" + training,
                        takes_training ? "stream, training" : "stream",
                        /*restrict_qualified=*/true);
    return;
  }
  const Direction& d = *back.forward;
  const bool micro = d.dropout_slice_elements > 0;
  write_recompute_overload(
      kernels_, a_, "recompute_" + name, "forward_" + name, d,
      "const Libraries&, cudaStream_t stream" + training,
      std::string(takes_training ? "stream, training" : "stream") + (micro ? ", micro" : ""));
}

void CudaKernelEmitter::emit_described(const FusedGroup& g) {
  const GroupPasses d = describe_group(m_, g, a_);
  if (!write_preamble(kernels_, d))
    return;
  // Backward and a recompute read the buffers backward sees (checkpointing); forward the plan's.
  const GroupPasses back = checkpointed_ ? describe_group(back_, g, a_) : GroupPasses{};
  // A direction that differs between training and evaluation takes the flag.
  if (const std::optional<Direction>& f = d.forward) {
    emit_function("forward_" + group_name(g), true, f->differs_in_evaluation(), *f);
    if (layer(g.first).recomputed)
      emit_recompute(g, f->differs_in_evaluation(), back);
  }
  if (const std::optional<Direction>& b = checkpointed_ ? back.backward : d.backward)
    emit_function("backward_" + group_name(g), true, false, *b);
}

void CudaKernelEmitter::emit_view(const FusedGroup& g) {
  kernels_.line(view_comment(m_, g));
  kernels_.blank();
  if (const std::optional<Direction> d = describe_view_backward(back_, g, a_))
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
          {"body", device_statements(f.direction, "fold_" + group_name(g), true)}},
         R"(
    // $heading$
    {
      $body$
    }
  )");
  return p.text();
}

}  // namespace staticnet::codegen
