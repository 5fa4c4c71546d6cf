// The step's passes around the sections, described once for every backend
// (pass_description.hpp): a Flatten's gradient where its input has another reader, the loss, the
// optimizer's update, and under Inference the BatchNorm folds.
#include <string>

#include "pass_description.hpp"
#include "staticnet/codegen/naming.hpp"
#include "staticnet/codegen/section_text.hpp"
#include "staticnet/codegen/text.hpp"

namespace staticnet::codegen {
namespace {

TensorUse role(ArenaText& arena, const std::string& name, BufferRole r, bool written) {
  return buffer_tensor(arena, name, arena.index(r), written);
}

}  // namespace

std::optional<Direction> describe_view_backward(const ModelView& model, const FusedGroup& g,
                                                ArenaText& arena) {
  if (!view_writes_gradient(model, g))
    return std::nullopt;
  const LayerPlan& l = model.layers.at(static_cast<std::size_t>(g.view));
  Direction d;
  d.tensors = {buffer_tensor(arena, "dy", l.output_gradient_buffer, false),
               input_gradient_tensor(l, arena)};
  d.passes = {{l.accumulates_input_gradient ? "dx += dy, per element." : "dx = dy, per element.",
               {"i"},
               {l.output_shape.elements()},
               "k::write_gradient<" + gradient_write(l) + ">(i, dy, dx);"}};
  return d;
}

Direction describe_loss(const ModelView& model, ArenaText& arena) {
  const LayerPlan& last = model.layers.back();
  // The gradient is of the whole batch's mean: under Accumulate<K> each micro-batch's pass
  // divides by the batch, not by its own samples (as PyTorch's loop divides each loss by K).
  const std::string batch = literal(model.batch());
  // Under loss scaling (Mixed<f16>) the gradient is the scaled loss's, by the scaler's current
  // scale, which the step reads where it runs.
  const bool scaled = model.find(BufferRole::loss_scale) != nullptr;
  const std::string scale = scaled ? ", scaler->scale" : "";
  const std::string of_the_mean =
      scaled ? "of the batch mean, times the loss scale." : "of the batch mean.";
  Direction d;
  if (model.setup.loss == LossKind::CrossEntropy) {
    d.tensors = {buffer_tensor(arena, "logits", last.output_buffer, false),
                 role(arena, "labels", BufferRole::labels, false),
                 role(arena, "loss", BufferRole::loss, true),
                 role(arena, "predicted", BufferRole::predictions, true),
                 buffer_tensor(arena, "dlogits", arena.loss_gradient(), true)};
    d.passes = {{"Each sample: its loss, its predicted class and d(logits) " + of_the_mean,
                 {"n"},
                 {model.micro_batch()},
                 "k::softmax_cross_entropy<" + batch + ", " + literal(model.output_shape[1]) +
                     ">(n, logits, labels, loss, predicted, dlogits" + scale + ");"}};
  } else {
    d.tensors = {buffer_tensor(arena, "output", last.output_buffer, false),
                 role(arena, "targets", BufferRole::targets, false),
                 role(arena, "loss", BufferRole::loss, true),
                 buffer_tensor(arena, "doutput", arena.loss_gradient(), true)};
    d.passes = {{"Each sample: its loss and d(output) " + of_the_mean,
                 {"n"},
                 {model.micro_batch()},
                 "k::mean_squared_error<" + batch + ", " +
                     literal(model.output_shape.elements() / model.micro_batch()) +
                     ">(n, output, targets, loss, doutput" + scale + ");"}};
  }
  if (scaled)
    d.tensors.push_back(
        {"scaler", "k::LossScaleState", false, arena.loss_scale(), "// the loss scaler's state"});
  return d;
}

Direction describe_update(const ModelView& model, ArenaText& arena) {
  Direction d;
  d.reads_constants = true;
  d.tensors = {{"params", "float", true, arena.at(BufferRole::parameters), "// parameters"},
               {"grads", "float", false, arena.at(BufferRole::gradients), "// gradients"}};
  std::string call;
  switch (model.setup.optimizer) {
    case OptimizerKind::SGD:
      call = "k::sgd_update(i, params, grads, constants);";
      break;
    case OptimizerKind::SGDMomentum:
      d.tensors.push_back({"velocity", "float", true, arena.at(BufferRole::optimizer_moment1),
                           "// optimizer_moment1"});
      call = "k::sgd_momentum_update(i, params, grads, velocity, constants);";
      break;
    case OptimizerKind::Adam:
    case OptimizerKind::AdamW:
      d.tensors.push_back(
          {"m", "float", true, arena.at(BufferRole::optimizer_moment1), "// optimizer_moment1"});
      d.tensors.push_back(
          {"v", "float", true, arena.at(BufferRole::optimizer_moment2), "// optimizer_moment2"});
      call = std::string("k::adam_update<") +
             (model.setup.optimizer == OptimizerKind::AdamW ? "true" : "false") +
             ">(i, params, grads, m, v, constants);";
      break;
  }
  d.passes = {{"Each parameter, with the step's scalars (learning rate, bias corrections).",
               {"i"},
               {model.parameter_count},
               call}};
  return d;
}

Direction describe_working_copy(const ModelView& model, ArenaText& arena) {
  const int copy = arena.index(BufferRole::parameter_copy);
  Direction d;
  d.tensors = {{"params", "float", false, arena.at(BufferRole::parameters), "// parameters"},
               {"copy", arena.element(copy), true, arena.at(copy), "// parameter_copy"}};
  d.passes = {{"Each parameter rounded into the working copy the products read.",
               {"i"},
               {model.parameter_count},
               "k::round_parameter(i, params, copy);"}};
  return d;
}

Fold describe_fold(const ModelView& model, const FusedGroup& g, ArenaText& arena) {
  Printer::Vars v = fold_vars(model, g, arena);
  const LayerPlan& conv =
      model.layers.at(static_cast<std::size_t>(g.product >= 0 ? g.product : g.grouped));
  Fold f;
  f.heading = v["span"] + ": BatchNorm " + v["norm"] + " into the " + v["kind"] + " (layer " +
              v["conv"] + ")";
  f.direction.tensors = {
      {"weight", "float", true, v["w"], v["w_note"]},
      {"bias", "float", false, v["b"], v["b_note"]},
      {"gamma", "float", false, v["gamma"], v["gamma_note"]},
      {"beta", "float", true, v["beta"], v["beta_note"]},
      {"running", "float", false, v["running"], "// non_trainable: running mean, then variance"}};
  f.direction.passes = {
      {"Each output channel: its weights scaled by γ/√(var + ε), and the "
       "shift written over β.",
       {"ch"},
       {weight_shape(conv)[0]},
       "k::fold_batch_norm<norm_" + v["norm"] + ", " + v["per_channel"] +
           ">(ch, weight, bias, gamma, beta, running);"}};
  return f;
}

}  // namespace staticnet::codegen
