// The CPU rendering of what families/ describes once for every backend (every layer family but the
// products, and the step's own passes: a Flatten's gradient, the loss, the update and the
// inference folds): each pass, in its host form, is a loop over its index space split across the
// thread pool (staticnet/cpu/launch.hpp), running the described call at every point.
#include <stdexcept>

#include "emitter.hpp"

namespace staticnet::codegen {
namespace {

// "c::for_each_2d(pool, 2'048, 256, [&](index_t plane, index_t q) {"
std::string loop_open(const PassForm& form) {
  static const char* const launchers[] = {"c::for_each", "c::for_each_2d", "c::for_each_3d"};
  std::string open = std::string(launchers[form.axes.size() - 1]) + "(pool";
  for (std::int64_t extent : form.extents)
    open += ", " + literal(extent);
  return open + ", [&](" + axis_parameters(form.axes) + ") {";
}

// Each pass in its host form, below its comment.
void write_passes(Printer& out, const std::vector<MapPass>& passes) {
  for (const MapPass& pass : passes) {
    if (pass.per_block && !pass.host)  // its call is a g::per_block body: device code
      throw std::logic_error("a per-block pass without a host form: " + pass.comment);
    const PassForm form = pass.host_form();
    out.line(wrap_comment(pass.comment, "// ", "// "));
    out.emit({{"loop", loop_text(loop_open(form), {form.call})}}, "$loop$\n");
  }
}

// A Dropout's mask key: the run's seed, the step and the layer; under Accumulate<K> moved to the
// micro-batch's first element (k::dropout_slice_key).
std::string host_key(const Direction& d) {
  const std::string key =
      "k::dropout_key(pass.seed, pass.step, " + std::to_string(d.dropout_layer) + ")";
  if (d.dropout_slice_elements == 0)
    return key;
  return "k::dropout_slice_key(" + key + ", micro * " + literal(d.dropout_slice_elements) + ")";
}

std::string identity_text(const IdentityCopy& copy) {
  return copy.in_place ? "// in place: " + copy.to + " is " + copy.from
                       : "std::copy(" + copy.from + ", " + copy.from + " + " +
                             literal(copy.elements) + ", " + copy.to + ");";
}

}  // namespace

std::string host_statements(const Direction& d, bool declare) {
  return direction_statements(
      d, declare, "",
      {.training = "pass.training",
       .identity = identity_text,
       .passes = [](Printer& out, const std::vector<MapPass>& passes,
                    const std::string&) { write_passes(out, passes); },
       .before_training =
           d.dropout_layer >= 0 ? "const std::uint64_t key = " + host_key(d) + ";" : ""});
}

void CpuKernelEmitter::emit_function(const std::string& name, const std::vector<Trailing>& trailing,
                                     const Direction& d) {
  emit_function(name, trailing, d, host_statements(d, false));
}

CpuKernelEmitter::Signature CpuKernelEmitter::signature(const std::vector<Trailing>& trailing,
                                                        const Direction& d) {
  Signature s;
  for (const Trailing& t : trailing) {
    const std::string separator = s.own.empty() ? "" : ", ";
    s.own += separator + t.type + (t.used ? " " + t.name : "");
    s.plan += separator + t.type + " " + t.name;
    s.arguments += separator + t.name;
  }
  if (d.dropout_slice_elements > 0) {  // its masks are the micro-batch's (host_key)
    s.own += ", index_t micro";
    s.arguments += ", micro";
  }
  return s;
}

void CpuKernelEmitter::emit_function(const std::string& name, const std::vector<Trailing>& trailing,
                                     const Direction& d, const std::string& body) {
  const Signature s = signature(trailing, d);
  write_function_pair(body_, a_, name, d, body, s.own, s.plan, s.arguments);
}

void CpuKernelEmitter::emit_recompute(const FusedGroup& g, const std::vector<Trailing>& trailing,
                                      const GroupPasses& back) {
  const std::string name = group_name(g);
  if (back.recompute) {
    // Its own passes; it takes what forward takes, so that the step calls both alike.
    std::vector<Trailing> own = trailing;
    for (Trailing& t : own)
      t.used = t.name == "pool";
    emit_function("recompute_" + name, own, *back.recompute);
    return;
  }
  const Signature s = signature(trailing, *back.forward);
  write_recompute_overload(body_, a_, "recompute_" + name, "forward_" + name, *back.forward, s.plan,
                           s.arguments);
}

void CpuKernelEmitter::emit_described(const FusedGroup& g) {
  const GroupPasses d = describe_group(m_, g, a_);
  if (!write_preamble(body_, d))
    return;
  // Backward and a recompute read the buffers backward sees (checkpointing); forward the plan's.
  const GroupPasses back = checkpointed_ ? describe_group(back_, g, a_) : GroupPasses{};
  // A direction that differs in evaluation reads the forward pass's flags; one that only copies
  // uses no thread.
  if (const std::optional<Direction>& f = d.forward) {
    std::vector<Trailing> trailing{{"c::ThreadPool&", "pool", !f->passes.empty()}};
    if (f->differs_in_evaluation())
      trailing.push_back({"const Pass&", "pass", true});
    emit_function("forward_" + group_name(g), trailing, *f);
    if (layer(g.first).recomputed)
      emit_recompute(g, trailing, back);
  }
  if (const std::optional<Direction>& b = checkpointed_ ? back.backward : d.backward)
    emit_function("backward_" + group_name(g), {{"c::ThreadPool&", "pool", true}}, *b);
}

void CpuKernelEmitter::emit_view(const FusedGroup& g) {
  body_.line(view_comment(m_, g));
  body_.blank();
  if (const std::optional<Direction> d = describe_view_backward(back_, g, a_))
    emit_function("backward_" + group_name(g), {{"c::ThreadPool&", "pool", true}}, *d);
}

void CpuKernelEmitter::emit_loss() {
  body_.line(loss_heading(m_));
  emit_function("loss_step", {{"c::ThreadPool&", "pool", true}}, describe_loss(m_, a_));
}

void CpuKernelEmitter::emit_update() {
  body_.line(update_heading(m_));
  emit_function(
      "update",
      {{"const k::OptimizerConstants&", "constants", true}, {"c::ThreadPool&", "pool", true}},
      describe_update(m_, a_));
}

void CpuKernelEmitter::emit_working_copy() {
  if (!m_.find(BufferRole::parameter_copy))
    return;
  body_.line(
      "// ==== The working copy: the parameters rounded for the products (mixed precision) ====");
  emit_function("make_working_copy", {{"c::ThreadPool&", "pool", true}},
                describe_working_copy(m_, a_));
}

std::string CpuKernelEmitter::fold_call(const FusedGroup& g) {
  const Fold f = describe_fold(m_, g, a_);
  Printer p;
  p.emit({{"heading", f.heading}, {"body", host_statements(f.direction, true)}}, R"(
    // $heading$
    {
      $body$
    }
  )");
  return p.text();
}

}  // namespace staticnet::codegen
