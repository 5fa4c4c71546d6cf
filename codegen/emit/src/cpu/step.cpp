// The CPU backend's entry points, which run the sections in the plan's order: the training step
// (forward, the loss, backward, the update) and evaluation, or inference with the BatchNorms the
// plan folded. The loss, the update and the folds themselves are described in families/ and
// rendered by passes.cpp.
#include "emitter.hpp"

namespace staticnet::codegen {

void CpuKernelEmitter::emit_inference_entry_points() {
  const GroupOrder order = group_order(m_, groups_);
  std::string forward_calls, folds;
  for (const FusedGroup* g : order.forward) {
    forward_calls +=
        (forward_calls.empty() ? "" : "\n") + inference_forward_line(m_, *g, "arena, pool");
    if (g->folded >= 0)
      folds += fold_call(*g);
  }
  const bool none = folds.empty();
  if (none)
    folds = "// No BatchNorm to fold.\n";
  body_.emit(
      {{"params", none ? "std::byte*, c::ThreadPool&" : "std::byte* arena, c::ThreadPool& pool"}},
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
  // Under Accumulate<K> the functions that read or write a slice of the batch take the
  // micro-batch (ArenaText::takes_micro_batch): forward's from the pass, the others from the loop.
  auto micro = [&](const std::string& function, const std::string& from) {
    return a_.takes_micro_batch(function) ? ", " + from : std::string();
  };
  std::vector<std::string> forward, backward;
  for (const FusedGroup* g : order.forward) {
    const std::string function = "forward_" + group_name(*g);
    forward.push_back(g->view >= 0 ? "// layer " + std::to_string(g->view) + ": Flatten, a view"
                                   : function + "(arena, pool" +
                                         (differs_in_evaluation(*g) ? ", pass" : "") +
                                         micro(function, "pass.micro") + ");");
  }
  // Under checkpointing a recompute runs forward again on the step's training pass.
  for (const BackwardRun& run : order.backward) {
    const FusedGroup& g = *run.group;
    if (run.recompute) {
      const std::string function = "recompute_" + group_name(g);
      backward.push_back(function + "(arena, pool" + (differs_in_evaluation(g) ? ", pass" : "") +
                         micro(function, "micro") + ");");
      continue;
    }
    const std::string function = "backward_" + group_name(g);
    backward.push_back(function + "(arena, pool" + micro(function, "micro") + ");");
  }
  const int grads = a_.index(BufferRole::gradients);
  Printer::Vars v{{"grads", at(grads)}, {"count", literal(m_.parameter_count)}};
  std::string forward_calls, backward_calls;
  for (const std::string& c : forward)
    forward_calls += (forward_calls.empty() ? "" : "\n") + c;
  for (const std::string& c : backward)
    backward_calls += (backward_calls.empty() ? "" : "\n") + c;
  const bool accumulates = m_.micro_batches() > 1;
  // The products read the working copy: remade from the masters before the forward pass, or
  // under Accumulate<K> once before the micro-batches.
  std::string working_copy;
  if (m_.find(BufferRole::parameter_copy)) {
    if (accumulates)
      working_copy = "make_working_copy(arena, pool);\n";
    else
      forward_calls = "make_working_copy(arena, pool);\n" + forward_calls;
  }
  v["forward"] = forward_calls;
  v["backward"] = backward_calls;
  v["loss"] = "loss_step(arena, pool" + micro("loss_step", "micro") + ");";
  // Under loss scaling (Mixed<f16>) the gradients arrive scaled: they are unscaled, and the
  // update is skipped where one of them overflowed; then the scale moves (GradScaler's step and
  // update, kernels/mixed_precision.hpp).
  v["update"] = "update(arena, constants, pool);";
  if (m_.find(BufferRole::loss_scale)) {
    const std::string scaler = a_.loss_scale();
    v["update"] = "k::LossScaleState& scaler = *" + scaler +
                  ";\n"
                  "c::unscale_gradients(pool, " +
                  at(grads) + ", " + literal(m_.parameter_count) +
                  ", scaler);\n"
                  "if (scaler.found_inf == 0.0f)  // else the step is skipped, as GradScaler skips "
                  "it\n"
                  "  update(arena, constants, pool);\n"
                  "k::update_loss_scale(scaler, k::LossScaleSettings{});";
  }
  // The training pass: named under checkpointing, where the recomputes run on it too.
  const std::string fields = std::string(".training = true, .seed = constants.seed, ") +
                             ".step = constants.step" + (accumulates ? ", .micro = micro" : "");
  v["training_pass"] = checkpointed_
                           ? "const Pass pass{" + fields + "};\nforward(arena, pool, pass);"
                           : "forward(arena, pool, Pass{" + fields + "});";
  body_.emit(v, R"(
    // ==== The step, in the plan's schedule ====================================================
    void forward(std::byte* arena, c::ThreadPool& pool, [[maybe_unused]] const Pass& pass) {
      $forward$
    }

    }  // namespace

  )");
  if (accumulates) {
    v["micro_batches"] = literal(m_.micro_batches());
    v["micro_batch"] = literal(m_.micro_batch());
    v["comment"] = wrap_comment("Accumulate<" + std::to_string(m_.micro_batches()) +
                                    ">: the batch of " + literal(m_.batch()) + " runs as " +
                                    v["micro_batches"] + " micro-batches of " + v["micro_batch"] +
                                    ", each forward, loss and backward on its slice of the "
                                    "batch, their gradients added up; then one update.",
                                "// ", "// ");
    v["working_copy"] = working_copy;
    body_.emit(v, R"(
      $comment$
      void train_step(std::byte* arena, const k::OptimizerConstants& constants, c::ThreadPool& pool) {
        c::zero(pool, $grads$, $count$);  // gradients: backward accumulates into them
        $working_copy$for (index_t micro = 0; micro < $micro_batches$; ++micro) {
          $training_pass$
          $loss$
          $backward$
        }
        $update$
      }

      void evaluate(std::byte* arena, c::ThreadPool& pool) {
        $working_copy$for (index_t micro = 0; micro < $micro_batches$; ++micro) {
          forward(arena, pool, Pass{.training = false, .micro = micro});
          $loss$
        }
      }
    )");
    return;
  }
  body_.emit(v, R"(
    void train_step(std::byte* arena, const k::OptimizerConstants& constants, c::ThreadPool& pool) {
      c::zero(pool, $grads$, $count$);  // gradients: backward accumulates into them
      $training_pass$
      $loss$
      $backward$
      $update$
    }

    void evaluate(std::byte* arena, c::ThreadPool& pool) {
      forward(arena, pool, Pass{.training = false});
      $loss$
    }
  )");
}

}  // namespace staticnet::codegen
