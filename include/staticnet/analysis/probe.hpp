#pragma once
// The analyzer's probe: the program `staticnet analyze` compiles from a user's header. Every
// STATICNET_MODEL line becomes an entry here; probe_main() writes each entry's plan, the very
// constant the static_asserts read (plan_v), as JSON on stdout. The analyzer renders that JSON
// and recomputes nothing.
//
// What-if questions run the same constexpr functions at run time with one setup field changed
// (the batch, the optimizer, the precision, the micro-batches), because their values come from
// the command line:
//
//   probe [--only NAME] [--batch N]... [--optimizer SGD|SGDMomentum|Adam|AdamW]...
//         [--precision FP32|Mixed<bf16>|Mixed<f16>|Pure<bf16>]... [--accumulate K]...
//         [--checkpoint None|Sqrt|Every<K>|Auto]... [--auto-budget BYTES | --auto-shared-budget
//         BYTES]
//         [--budget BYTES | --shared-budget BYTES]... [--fit BYTES | --fit-shared BYTES]...
//
// --batch, --optimizer, --precision, --accumulate and --checkpoint span a sweep (their product; an
// empty axis keeps the setup's value; a training setup's only, for --optimizer, --accumulate and
// --checkpoint); a point
// whose K does not divide its batch is written as not applicable, without a footprint. --budget
// asks for the largest batch whose step fits in BYTES, for the setup's optimizer, precision,
// micro-batches and checkpointing and each swept one (under Accumulate<K>, the largest multiple of
// K);
// --shared-budget the same on a device whose host shares its memory, where the trainer's host
// bytes (plan.host) count against BYTES too. --fit lists the setups that fit BYTES, cheapest
// first, as fit.hpp's for_each_fitting finds them (--fit-shared: on such a device). The output's
// layout is versioned (`probe_format`); analyzer/src/plan_dump.cpp reads it. A swept Auto
// checkpoints to fit --auto-budget (the model's bytes; --auto-shared-budget: with the host's); a
// point it cannot fit is not applicable, with the bytes the least cut set needs. Only this probe
// includes this header (through register.hpp).
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "staticnet/budget.hpp"
#include "staticnet/buffer_table.hpp"
#include "staticnet/fit.hpp"
#include "staticnet/fusion.hpp"
#include "staticnet/lower.hpp"
#include "staticnet/plan.hpp"

namespace staticnet::analysis {

inline constexpr int probe_format = 15;  // 2: layers' inputs and padding_end; 3: folded;
                                         // 4: prefetch; 5: layers' non_trainable; 6: buffers'
                                         // dtype and elements, steps' accesses, passes; 7: buffers
                                         // as the buffer table's columns (buffer_table.hpp);
                                         // 8: the sweep's and max_batch's precision; 9: their
                                         // micro_batches and the plan's (each where > 1), the
                                         // sweep's "applicable"; 10: a point's "reason" where not
                                         // applicable; 11: the plan's and each point's "host"
                                         // 12: --fit; 13: layers' recompute_flops; 14: fit's
                                         // checkpoint, step_flops and recompute_flops, the
                                         // sweep's checkpoint and recompute_flops, the plan's
                                         // checkpoint (where not None); 15: a point's "needs"
                                         // and reason checkpoint_budget_too_small (Auto)

struct Request {
  std::string only;  // report only the model registered under this name
  std::vector<std::int64_t> batches;
  std::vector<OptimizerKind> optimizers;
  std::vector<PrecisionKind> precisions;
  std::vector<std::int64_t> accumulations;  // K of Accumulate<K>: the micro-batches of a step
  struct Policy {                           // P of Checkpoint<P>
    CheckpointKind kind = CheckpointKind::none;
    std::int64_t every = 0;
    bool operator==(const Policy&) const = default;
  };
  std::vector<Policy> checkpoints;
  // Bytes the model may use (the device's overhead is off), in the order given, each with
  // whether the trainer's host bytes count against them too (--shared-budget).
  struct SearchBudget {
    std::int64_t bytes = 0;
    bool shares_host_memory = false;
  };
  std::vector<SearchBudget> budgets;
  std::vector<SearchBudget> fits;  // --fit, --fit-shared
  SearchBudget auto_budget;        // Checkpoint<Auto>'s (--auto-budget, --auto-shared-budget)
};

// A minimal JSON writer: the probe prints identifiers and integers only, so no escaping beyond
// quotes and backslashes is needed.
class JsonOut {
 public:
  explicit JsonOut(std::FILE* f) : f_(f) {}
  void open(char bracket) {
    separate();
    std::fputc(bracket, f_);
    first_ = true;
  }
  void close(char bracket) {
    std::fputc(bracket, f_);
    first_ = false;
  }
  void key(const char* k) {
    separate();
    string_literal(k);
    std::fputc(':', f_);
    first_ = true;  // the value follows without a comma
  }
  void value(std::int64_t v) {
    separate();
    std::fprintf(f_, "%" PRId64, v);
  }
  void value(bool v) {
    separate();
    std::fputs(v ? "true" : "false", f_);
  }
  void value(const char* s) {
    separate();
    string_literal(s);
  }
  void value(const Shape& s) {
    open('[');
    for (int i = 0; i < s.rank; ++i)
      value(s[i]);
    close(']');
  }
  template <class T>
  void field(const char* k, const T& v) {
    key(k);
    value(v);
  }

 private:
  void separate() {
    if (!first_)
      std::fputc(',', f_);
    first_ = false;
  }
  void string_literal(const char* s) {
    std::fputc('"', f_);
    for (; *s; ++s) {
      if (*s == '"' || *s == '\\')
        std::fputc('\\', f_);
      std::fputc(*s, f_);
    }
    std::fputc('"', f_);
  }
  std::FILE* f_;
  bool first_ = true;
};

inline void write_footprint(JsonOut& out, const Footprint& f) {
  out.key("footprint");
  out.open('{');
  out.field("weights", f.weights.count);
  out.field("non_trainable", f.non_trainable.count);
  out.field("gradients", f.gradients.count);
  out.field("optimizer_state", f.optimizer_state.count);
  out.field("inputs", f.inputs.count);
  out.field("workspace", f.workspace.count);
  out.field("activations", f.activations.count);
  out.field("total", f.total().count);
  out.close('}');
}

// A setup's checkpointing policy as Checkpoint<P> spells P: "None", "Every<K>" or "Sqrt".
inline std::string checkpoint_policy(const SetupDesc& s) {
  return s.checkpoint == CheckpointKind::every ? "Every<" + std::to_string(s.checkpoint_every) + ">"
                                               : std::string(name_of(s.checkpoint));
}

// The trainer's host memory beside the arena (plan.host).
inline void write_host(JsonOut& out, const HostFootprint& h) {
  out.key("host");
  out.open('{');
  out.field("batch_slots", h.batch_slots.count);
  out.field("pinned_staging", h.pinned_staging.count);
  out.field("checkpoint_state", h.checkpoint_state.count);
  out.field("total", h.total().count);
  out.close('}');
}

inline const char* step_name(StepKind k) {
  switch (k) {
    case StepKind::forward:
      return "forward";
    case StepKind::loss:
      return "loss";
    case StepKind::backward:
      return "backward";
    case StepKind::update:
      return "update";
    case StepKind::recompute:
      return "recompute";
  }
  return "?";
}

template <std::size_t L>
void write_plan(JsonOut& out, const Plan<L>& p) {
  out.key("plan");
  out.open('{');
  out.field("mode", p.mode == Mode::training ? "training" : "inference");
  out.field("batch", p.batch());
  if (p.micro_batches() > 1)  // Accumulate<K>; absent: 1, the whole batch at once
    out.field("micro_batches", p.micro_batches());
  if (p.setup.checkpoint != CheckpointKind::none)  // Checkpoint<P>; absent: None
    out.field("checkpoint", checkpoint_policy(p.setup).c_str());
  out.field("input_dtype", name_of(p.setup.input_dtype));
  out.field("loss", name_of(p.setup.loss));
  out.field("optimizer", name_of(p.setup.optimizer));
  out.field("precision", name_of(p.setup.precision));
  out.field("prefetch", p.setup.prefetch);
  out.field("input_shape", p.input_shape);
  out.field("output_shape", p.output_shape);
  out.field("parameter_count", p.parameter_count);
  out.field("non_trainable_count", p.non_trainable_count);
  write_footprint(out, p.footprint);
  write_host(out, p.host);
  out.key("layers");
  out.open('[');
  for (const LayerPlan& l : p.layers) {
    out.open('{');
    out.field("kind", name_of(l.kind));
    out.key("inputs");  // the layers it reads; -1 is the model's input
    out.open('[');
    for (int i = 0; i < l.input_count(); ++i)
      out.value(std::int64_t{l.inputs[i]});
    out.close(']');
    out.field("out", l.options.out);
    out.key("kernel");
    out.value(Shape{l.options.kernel_h, l.options.kernel_w});
    out.key("stride");
    out.value(Shape{l.options.stride_h, l.options.stride_w});
    out.key("padding");
    out.value(Shape{l.options.pad_h, l.options.pad_w});
    out.key("padding_end");  // bottom and right: 'same' may pad one more there
    out.value(Shape{l.options.pad_h_end, l.options.pad_w_end});
    out.field("bias", l.options.bias);
    out.field("input_shape", l.input_shape);
    out.field("output_shape", l.output_shape);
    out.field("parameters", l.parameters);
    out.field("non_trainable", l.non_trainable);
    out.field("saved_bytes", l.saved_bytes);
    out.field("forward_flops", l.forward_flops);
    out.field("backward_flops", l.backward_flops);
    out.field("recompute_flops", l.recompute_flops);  // checkpointing's
    out.field("workspace_bytes", l.workspace_bytes);
    out.field("runs_backward", l.runs_backward);
    out.field("in_place", l.in_place);
    out.field("folded", l.folded);
    out.close('}');
  }
  out.close(']');
  out.key("buffers");
  out.open('[');
  for (const Buffer& b : p.buffers) {  // the buffer table's columns (buffer_table.hpp)
    out.open('{');
    visit_buffer_columns(b, [&](const char* column, auto value) {
      if constexpr (std::is_enum_v<decltype(value)>)
        out.field(column, name_of(value));
      else
        out.field(column, static_cast<std::int64_t>(value));
    });
    out.close('}');
  }
  out.close(']');
  // The fusion stage's groups (fusion.hpp), for each backend: [first, last] layer of each pass.
  out.key("passes");
  out.open('{');
  for (FusionTarget target : {FusionTarget::cpu, FusionTarget::cuda}) {
    std::vector<FusedGroup> groups;
    fuse(p, target, groups);
    out.key(name_of(target));
    out.open('[');
    for (const FusedGroup& g : groups) {
      out.open('[');
      out.value(g.first);
      out.value(g.last);
      out.close(']');
    }
    out.close(']');
  }
  out.close('}');
  out.key("schedule");
  out.open('[');
  for (std::int64_t s = 0; s < p.step_count(); ++s) {
    out.open('{');
    out.field("kind", step_name(p.schedule[s].kind));
    out.field("layer", p.schedule[s].layer);
    out.field("live_activation_bytes", p.live_activation_bytes(s));
    out.key("accesses");  // [buffer, version, "read" | "write" | "update"], in the step's order
    out.open('[');
    for (std::int64_t a = p.first_access(s); a < p.end_access(s); ++a) {
      const Access access = p.access(a);
      out.open('[');
      out.value(static_cast<std::int64_t>(access.buffer));
      out.value(static_cast<std::int64_t>(access.version));
      out.value(name_of(access.kind));
      out.close(']');
    }
    out.close(']');
    out.close('}');
  }
  out.close(']');
  out.close('}');
}

// One point of the sweep: the setup s, its footprint and host bytes and what its checkpointing
// recomputes, or why it does not plan.
template <class Layers>
void write_point(JsonOut& out, const Layers& layers, const SetupDesc& s) {
  out.open('{');
  out.field("batch", s.batch);
  out.field("optimizer", name_of(s.optimizer));
  out.field("precision", name_of(s.precision));
  if (s.micro_batches > 1)
    out.field("micro_batches", s.micro_batches);
  out.field("checkpoint", checkpoint_policy(s).c_str());
  // A point that does not plan: K equal micro-batches that do not make the batch, or (the one
  // error lowering finds by the batch) a BatchNorm given one sample.
  if (s.batch % s.micro_batches != 0) {
    out.field("applicable", false);
    out.field("reason", "micro_batches_do_not_divide");
  } else if (const auto g = lower(layers, s); !g.error.ok()) {
    out.field("applicable", false);
    out.field("reason", g.error.code == ErrorCode::batch_norm_one_value_per_channel
                            ? "batch_norm_one_value_per_channel"
                            : "error");
  } else if (const auto point = plan(g); !point.error.ok()) {
    // Checkpoint<Auto> fits no cut set into its budget: the least any needs.
    out.field("applicable", false);
    out.field("reason", point.error.code == ErrorCode::checkpoint_budget_too_small
                            ? "checkpoint_budget_too_small"
                        : point.error.code == ErrorCode::checkpoint_placement_over_budget
                            ? "checkpoint_placement_over_budget"
                        : point.error.code == ErrorCode::checkpoint_search_too_large
                            ? "checkpoint_search_too_large"
                            : "error");
    if (point.error.code == ErrorCode::checkpoint_budget_too_small)
      out.field("needs", point.error.b);
  } else {
    write_footprint(out, point.footprint);
    write_host(out, point.host);
    out.field("step_flops", point.forward_flops() + point.backward_flops());
    out.field("recompute_flops", point.recompute_flops());
  }
  out.close('}');
}

// One registered model: its plan, the sweep and the largest batches.
template <Model M, Setup S>
void write_model(JsonOut& out, const Request& r) {
  constexpr auto& p = plan_v<M, S>;  // the compile-time plan; a wrong model fails the build here
  constexpr auto layers = flatten<M>();
  const SetupDesc base = S::desc();
  const bool training = base.mode == Mode::training;
  write_plan(out, p);

  std::vector<std::int64_t> batches = r.batches;
  std::vector<OptimizerKind> optimizers = r.optimizers;
  std::vector<PrecisionKind> precisions = r.precisions;
  std::vector<std::int64_t> accumulations = r.accumulations;
  using Policy = Request::Policy;
  std::vector<Policy> policies = r.checkpoints;
  if (batches.empty())
    batches.push_back(base.batch);
  if (optimizers.empty() || !training)
    optimizers = {base.optimizer};
  if (precisions.empty())
    precisions = {base.precision};
  if (accumulations.empty() || !training)  // Accumulate is a training option
    accumulations = {base.micro_batches};
  if (policies.empty() || !training)  // and so is Checkpoint
    policies = {{base.checkpoint, base.checkpoint_every}};
  auto apply = [&r](SetupDesc& s, const Policy& c) {
    s.checkpoint = c.kind;
    s.checkpoint_every = c.every;
    // With --checkpoint auto, Auto fits the analyzer's first budget (a setup's own Auto too);
    // without, a setup's own Auto keeps its budget.
    if (c.kind == CheckpointKind::least && r.auto_budget.bytes > 0) {
      s.checkpoint_budget = Device{.memory = Bytes{r.auto_budget.bytes}, .overhead = Bytes{0}};
      s.checkpoint_budget.shares_host_memory = r.auto_budget.shares_host_memory;
    }
  };

  out.key("sweep");
  out.open('[');
  if (!r.batches.empty() || !r.optimizers.empty() || !r.precisions.empty() ||
      !r.accumulations.empty() || !r.checkpoints.empty()) {
    for (PrecisionKind k : precisions) {
      for (OptimizerKind o : optimizers) {
        for (std::int64_t micro_batches : accumulations) {
          for (const Policy& c : policies) {
            for (std::int64_t b : batches) {
              SetupDesc s = base;
              s.batch = b;
              s.optimizer = o;
              s.precision = k;
              s.micro_batches = micro_batches;
              apply(s, c);
              write_point(out, layers, s);
            }
          }
        }
      }
    }
  }
  out.close(']');

  // The largest batch under each budget, for the setup's optimizer, precision, micro-batches and
  // checkpointing and each swept one (the setup's first).
  auto with_base_first = [](auto base_value, const auto& swept) {
    std::vector<decltype(base_value)> values = {base_value};
    for (auto v : swept)
      if (v != base_value)
        values.push_back(v);
    return values;
  };
  out.key("max_batch");
  out.open('[');
  for (PrecisionKind k : with_base_first(base.precision, precisions)) {
    for (OptimizerKind o : with_base_first(base.optimizer, optimizers)) {
      for (std::int64_t micro_batches : with_base_first(base.micro_batches, accumulations)) {
        for (const Policy& c :
             with_base_first(Policy{base.checkpoint, base.checkpoint_every}, policies)) {
          SetupDesc s = base;
          s.optimizer = o;
          s.precision = k;
          s.micro_batches = micro_batches;
          apply(s, c);
          out.open('{');
          out.field("optimizer", name_of(o));
          out.field("precision", name_of(k));
          if (micro_batches > 1)
            out.field("micro_batches", micro_batches);
          out.field("checkpoint", checkpoint_policy(s).c_str());
          out.key("by_budget");
          out.open('[');
          for (const Request::SearchBudget& budget : r.budgets) {
            Device shared;
            shared.shares_host_memory = budget.shares_host_memory;
            out.value(
                detail::max_batch_for(layers, s, Bytes{budget.bytes}, shared));  // K divides it
          }
          out.close(']');
          out.close('}');
        }
      }
    }
  }
  out.close(']');

  // The setups that fit each --fit budget, cheapest first; bytes without the device's overhead,
  // which the budget has taken off already.
  out.key("fit");
  out.open('[');
  for (const Request::SearchBudget& budget : r.fits) {
    Device device{.memory = Bytes{budget.bytes}, .overhead = Bytes{0}};
    device.shares_host_memory = budget.shares_host_memory;
    out.open('[');
    detail::for_each_fitting(layers, base, device, [&](const Fit& f) {
      out.open('{');
      out.field("remedy", name_of(f.remedy));
      out.field("batch", f.setup.batch);
      out.field("micro_batches", f.setup.micro_batches);
      out.field("checkpoint", checkpoint_policy(f.setup).c_str());
      out.field("required", f.required.count);
      out.field("step_flops", f.step_flops);
      out.field("recompute_flops", f.recompute_flops);
      out.close('}');
      return true;
    });
    out.close(']');
  }
  out.close(']');
}

struct Entry {
  const char* name;
  const char* model;
  const char* setup;
  void (*write)(JsonOut&, const Request&);
};

inline std::vector<Entry>& registry() {
  static std::vector<Entry> entries;
  return entries;
}

template <Model M, Setup S>
bool register_model(const char* name, const char* model, const char* setup) {
  registry().push_back({name, model, setup, &write_model<M, S>});
  return true;
}

inline bool parse_count(const char* text, std::int64_t& out) {
  char* end = nullptr;
  const long long v = std::strtoll(text, &end, 10);
  if (end == text || *end != '\0' || v <= 0)
    return false;
  out = v;
  return true;
}

// Exit status 0, or 2 for arguments it does not understand (the analyzer writes them, so that
// means the analyzer and this header disagree).
inline int probe_main(int argc, char** argv) {
  Request r;
  for (int i = 1; i < argc; i += 2) {  // an option and its value
    const char* arg = argv[i];
    const char* next = i + 1 < argc ? argv[i + 1] : nullptr;
    bool ok = next != nullptr;
    if (ok && std::strcmp(arg, "--only") == 0) {
      r.only = next;
    } else if (ok && std::strcmp(arg, "--batch") == 0) {
      std::int64_t b = 0;
      ok = parse_count(next, b);
      r.batches.push_back(b);
    } else if (ok && std::strcmp(arg, "--optimizer") == 0) {
      OptimizerKind o{};
      ok = parse_optimizer(next, o);
      r.optimizers.push_back(o);
    } else if (ok && std::strcmp(arg, "--precision") == 0) {
      PrecisionKind k{};
      ok = parse_precision(next, k);
      r.precisions.push_back(k);
    } else if (ok && std::strcmp(arg, "--accumulate") == 0) {
      std::int64_t k = 0;
      ok = parse_count(next, k);
      r.accumulations.push_back(k);
    } else if (ok && std::strcmp(arg, "--checkpoint") == 0) {
      Request::Policy c;
      ok = parse_checkpoint(next, c.kind, c.every);
      r.checkpoints.push_back(c);
    } else if (ok &&
               (std::strcmp(arg, "--budget") == 0 || std::strcmp(arg, "--shared-budget") == 0)) {
      std::int64_t b = 0;
      ok = parse_count(next, b);
      r.budgets.push_back({b, std::strcmp(arg, "--shared-budget") == 0});
    } else if (ok && (std::strcmp(arg, "--auto-budget") == 0 ||
                      std::strcmp(arg, "--auto-shared-budget") == 0)) {
      ok = parse_count(next, r.auto_budget.bytes);
      r.auto_budget.shares_host_memory = std::strcmp(arg, "--auto-shared-budget") == 0;
    } else if (ok && (std::strcmp(arg, "--fit") == 0 || std::strcmp(arg, "--fit-shared") == 0)) {
      std::int64_t b = 0;
      ok = parse_count(next, b);
      r.fits.push_back({b, std::strcmp(arg, "--fit-shared") == 0});
    } else {
      ok = false;
    }
    if (!ok) {
      std::fprintf(stderr, "staticnet probe: cannot use argument '%s'\n", arg);
      return 2;
    }
  }
  JsonOut out(stdout);
  out.open('{');
  out.field("probe_format", std::int64_t{probe_format});
  out.key("models");
  out.open('[');
  for (const Entry& e : registry()) {
    if (!r.only.empty() && r.only != e.name)
      continue;
    out.open('{');
    out.field("name", e.name);
    out.field("model", e.model);
    out.field("setup", e.setup);
    e.write(out, r);
    out.close('}');
  }
  out.close(']');
  out.close('}');
  std::fputc('\n', stdout);
  return std::fflush(stdout) == 0 ? 0 : 1;
}

}  // namespace staticnet::analysis
