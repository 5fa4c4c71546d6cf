// The CPU backend's step around the sections: the loss and its gradient, the optimizer's update,
// and the entry points that run the groups in order (training, or inference with the BatchNorms
// the plan folded).
#include "emitter.hpp"

namespace staticnet::codegen {

void CpuKernelEmitter::emit_loss() {
  const LayerPlan& last = m_.layers.back();
  const int gradient = a_.loss_gradient();
  const int loss = a_.index(BufferRole::loss);
  Printer::Vars v{{"output", at(last.output_buffer)},
                  {"output_note", note(last.output_buffer)},
                  {"loss", at(loss)},
                  {"loss_note", note(loss)},
                  {"grad", at(gradient)},
                  {"grad_note", note(gradient)},
                  {"batch", literal(m_.batch())},
                  {"shape", shape_text(m_.output_shape)}};
  if (m_.setup.loss == LossKind::CrossEntropy) {
    const int labels = a_.index(BufferRole::labels);
    const int predictions = a_.index(BufferRole::predictions);
    v["labels"] = at(labels);
    v["labels_note"] = note(labels);
    v["predictions"] = at(predictions);
    v["predictions_note"] = note(predictions);
    v["classes"] = literal(m_.output_shape[1]);
    body_.emit(v, R"(
      // ==== Loss: softmax + cross-entropy over the logits $shape$, forward and backward ======
      // One pass per sample: the loss, the predicted class, and d(logits) of the batch mean.
      void loss_step(std::byte* arena, c::ThreadPool& pool) {
        const float* const logits = $output$;  $output_note$
        const std::int32_t* const labels = $labels$;  $labels_note$
        float* const loss = $loss$;  $loss_note$
        std::int32_t* const predicted = $predictions$;  $predictions_note$
        float* const dlogits = $grad$;  $grad_note$
        c::for_each(pool, $batch$, [&](index_t n) {
          k::softmax_cross_entropy<$batch$, $classes$>(n, logits, labels, loss, predicted, dlogits);
        });
      }

    )");
  } else {
    const int targets = a_.index(BufferRole::targets);
    v["targets"] = at(targets);
    v["targets_note"] = note(targets);
    v["elements"] = literal(m_.output_shape.elements() / m_.batch());
    body_.emit(v, R"(
      // ==== Loss: mean squared error over the output $shape$, forward and backward ===========
      void loss_step(std::byte* arena, c::ThreadPool& pool) {
        const float* const output = $output$;  $output_note$
        const float* const targets = $targets$;  $targets_note$
        float* const loss = $loss$;  $loss_note$
        float* const doutput = $grad$;  $grad_note$
        c::for_each(pool, $batch$, [&](index_t n) {
          k::mean_squared_error<$batch$, $elements$>(n, output, targets, loss, doutput);
        });
      }

    )");
  }
}

void CpuKernelEmitter::emit_update() {
  const int params = a_.index(BufferRole::parameters);
  const int grads = a_.index(BufferRole::gradients);
  Printer::Vars v{{"params", at(params)},
                  {"grads", at(grads)},
                  {"count", literal(m_.parameter_count)},
                  {"optimizer", name_of(m_.setup.optimizer)}};
  body_.emit(v, R"(
    // ==== Update: $optimizer$ over the whole contiguous parameter region, one loop ===========
    void update(std::byte* arena, const k::OptimizerConstants& constants, c::ThreadPool& pool) {
      float* const params = $params$;  // parameters
      const float* const grads = $grads$;  // gradients
  )");
  body_.indent();
  switch (m_.setup.optimizer) {
    case OptimizerKind::SGD:
      body_.emit(v, R"(
        c::for_each(pool, $count$, [&](index_t i) { k::sgd_update(i, params, grads, constants); });
      )");
      break;
    case OptimizerKind::SGDMomentum:
      v["m1"] = at(a_.index(BufferRole::optimizer_moment1));
      body_.emit(v, R"(
        float* const velocity = $m1$;  // optimizer_moment1
        c::for_each(pool, $count$, [&](index_t i) {
          k::sgd_momentum_update(i, params, grads, velocity, constants);
        });
      )");
      break;
    case OptimizerKind::Adam:
    case OptimizerKind::AdamW:
      v["m1"] = at(a_.index(BufferRole::optimizer_moment1));
      v["m2"] = at(a_.index(BufferRole::optimizer_moment2));
      v["decoupled"] = m_.setup.optimizer == OptimizerKind::AdamW ? "true" : "false";
      body_.emit(v, R"(
        float* const m = $m1$;  // optimizer_moment1
        float* const v = $m2$;  // optimizer_moment2
        c::for_each(pool, $count$, [&](index_t i) {
          k::adam_update<$decoupled$>(i, params, grads, m, v, constants);
        });
      )");
      break;
  }
  body_.outdent();
  body_.line("}");
  body_.blank();
}

std::string CpuKernelEmitter::fold_call(const FusedGroup& g) {
  Printer p;
  p.emit(fold_vars(m_, g, a_),
         R"(
    {  // $span$: BatchNorm $norm$ into the $kind$ (layer $conv$)
      float* const weight = $w$;  $w_note$
      const float* const bias = $b$;  $b_note$
      const float* const gamma = $gamma$;  $gamma_note$
      float* const beta = $beta$;  $beta_note$
      const float* const running = $running$;  // non_trainable: running mean, then running variance
      c::for_each(pool, $channels$, [&](index_t ch) {
        k::fold_batch_norm<norm_$norm$, $per_channel$>(ch, weight, bias, gamma, beta, running);
      });
    }
  )");
  return p.text();
}

void CpuKernelEmitter::emit_inference_entry_points() {
  const GroupOrder order = group_order(m_, groups_);
  std::string forward_calls, folds;
  for (const FusedGroup* g : order.forward) {
    forward_calls +=
        (forward_calls.empty() ? "" : "\n") + inference_forward_line(m_, *g, "arena, pool");
    if (g->folded >= 0)
      folds += fold_call(*g);
  }
  if (folds.empty())
    folds = "// No BatchNorm to fold.\n";
  body_.emit({{"params", folds.starts_with("//") ? "std::byte*, c::ThreadPool&"
                                                 : "std::byte* arena, c::ThreadPool& pool"}},
             R"(
    }  // namespace

    // ==== Loading: the folded BatchNorms, once =================================================
    void fold_batch_norms($params$) {
  )");
  body_.indent();
  body_.emit(folds);
  body_.outdent();
  body_.emit({{"forward", forward_calls}}, R"(
    }

    // ==== The forward pass, in the plan's schedule =============================================
    void infer(std::byte* arena, c::ThreadPool& pool) {
      $forward$
    }
  )");
}

void CpuKernelEmitter::emit_entry_points() {
  if (!m_.training()) {
    emit_inference_entry_points();
    return;
  }
  const GroupOrder order = group_order(m_, groups_);
  std::vector<std::string> forward, backward;
  for (const FusedGroup* g : order.forward)
    forward.push_back(
        g->view >= 0 ? "// layer " + std::to_string(g->view) + ": Flatten, a view"
                     : "forward_" + group_name(*g) +
                           (differs_in_evaluation(*g) ? "(arena, pool, pass);" : "(arena, pool);"));
  for (const FusedGroup* g : order.backward)
    backward.push_back("backward_" + group_name(*g) + "(arena, pool);");
  const int grads = a_.index(BufferRole::gradients);
  Printer::Vars v{{"grads", at(grads)}, {"count", literal(m_.parameter_count)}};
  std::string forward_calls, backward_calls;
  for (const std::string& c : forward)
    forward_calls += (forward_calls.empty() ? "" : "\n") + c;
  for (const std::string& c : backward)
    backward_calls += (backward_calls.empty() ? "" : "\n") + c;
  v["forward"] = forward_calls;
  v["backward"] = backward_calls;
  body_.emit(v, R"(
    // ==== The step, in the plan's schedule ====================================================
    void forward(std::byte* arena, c::ThreadPool& pool, [[maybe_unused]] const Pass& pass) {
      $forward$
    }

    }  // namespace

    void train_step(std::byte* arena, const k::OptimizerConstants& constants, c::ThreadPool& pool) {
      c::zero(pool, $grads$, $count$);  // gradients: backward accumulates into them
      forward(arena, pool, Pass{.training = true, .seed = constants.seed, .step = constants.step});
      loss_step(arena, pool);
      $backward$
      update(arena, constants, pool);
    }

    void evaluate(std::byte* arena, c::ThreadPool& pool) {
      forward(arena, pool, Pass{.training = false});
      loss_step(arena, pool);
    }
  )");
}

}  // namespace staticnet::codegen
