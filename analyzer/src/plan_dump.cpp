// Reads a probe's JSON (include/staticnet/analysis/probe.hpp writes it) into PlanDump values.
#include "staticnet/analyzer/plan_dump.hpp"

#include <algorithm>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>
#include <staticnet/buffer_table.hpp>

namespace staticnet::analyzer {

namespace {

using nlohmann::json;

// The probe of this staticnet writes exactly this version.
constexpr int expected_probe_format = 15;

FootprintBytes footprint_of(const json& j) {
  FootprintBytes f;
  for (Category c : categories)
    f.by_category[static_cast<int>(c)] = j.at(name_of(c)).get<std::int64_t>();
  f.total = j.at("total").get<std::int64_t>();
  return f;
}

HostBytes host_of(const json& j) {
  return {j.at("batch_slots").get<std::int64_t>(), j.at("pinned_staging").get<std::int64_t>(),
          j.at("checkpoint_state").get<std::int64_t>(), j.at("total").get<std::int64_t>()};
}

LayerRow layer_of(const json& j) {
  LayerRow l;
  l.kind = j.at("kind").get<std::string>();
  l.inputs = j.at("inputs").get<std::vector<std::int64_t>>();
  l.out = j.at("out").get<std::int64_t>();
  l.kernel = j.at("kernel").get<Dims>();
  l.stride = j.at("stride").get<Dims>();
  l.padding = j.at("padding").get<Dims>();
  l.padding_end = j.at("padding_end").get<Dims>();
  l.bias = j.at("bias").get<bool>();
  l.input_shape = j.at("input_shape").get<Dims>();
  l.output_shape = j.at("output_shape").get<Dims>();
  l.parameters = j.at("parameters").get<std::int64_t>();
  l.non_trainable = j.at("non_trainable").get<std::int64_t>();
  l.saved_bytes = j.at("saved_bytes").get<std::int64_t>();
  l.forward_flops = j.at("forward_flops").get<std::int64_t>();
  l.backward_flops = j.at("backward_flops").get<std::int64_t>();
  l.recompute_flops = j.at("recompute_flops").get<std::int64_t>();
  l.workspace_bytes = j.at("workspace_bytes").get<std::int64_t>();
  l.runs_backward = j.at("runs_backward").get<bool>();
  l.in_place = j.at("in_place").get<bool>();
  l.folded = j.at("folded").get<bool>();
  return l;
}

// The enumerator whose name_of() is `name`, of `count` enumerators; what names the column.
template <class Enum>
Enum enumerator(const std::string& name, int count, const char* what) {
  for (int i = 0; i < count; ++i)
    if (name == name_of(static_cast<Enum>(i)))
      return static_cast<Enum>(i);
  throw ProbeOutputError(std::string("the probe names an unknown buffer ") + what + " '" + name +
                         "'");
}

// A row of the buffer table (staticnet/buffer_table.hpp), read by its columns' names into the
// core's Buffer, which derives the region and the bytes it occupies as the planner does: in
// 256-byte slots, or 16-byte ones in a quantized plan (Int8; plan.hpp sets them so for every
// buffer, which the table therefore does not carry).
BufferRow buffer_of(const json& j, bool quantized) {
  namespace column = staticnet::buffer_column;
  for (const char* name : staticnet::buffer_columns)
    if (!j.contains(name))
      throw ProbeOutputError(std::string("the probe's buffer has no '") + name + "' column");
  Buffer b;
  if (quantized)
    b.alignment_log2 = staticnet::detail::quantized_alignment_log2;
  b.role = enumerator<BufferRole>(j.at(column::role).get<std::string>(), buffer_role_count, "role");
  b.dtype = enumerator<DType>(j.at(column::dtype).get<std::string>(), dtype_count, "dtype");
  b.layer = j.at(column::layer).get<std::int64_t>();
  b.size = j.at(column::bytes).get<std::int64_t>();
  b.offset = j.at(column::offset).get<std::int64_t>();
  b.first_step = j.at(column::first_step).get<std::int64_t>();
  b.last_step = j.at(column::last_step).get<std::int64_t>();
  if (j.at(column::elements).get<std::int64_t>() != b.elements())
    throw ProbeOutputError(
        "the probe's buffer holds " + std::to_string(j.at(column::elements).get<std::int64_t>()) +
        " elements in " + std::to_string(b.size) + " bytes of " + name_of(b.dtype));
  return {.role = name_of(b.role),
          .dtype = name_of(b.dtype),
          .elements = b.elements(),
          .category = b.region(),
          .layer = b.layer,
          .size = b.size,
          .occupied = b.occupied(),
          .offset = b.offset,
          .first_step = b.first_step,
          .last_step = b.last_step};
}

// Accumulate<K>'s K, which the probe writes only where it is above 1.
std::int64_t micro_batches_of(const json& j) {
  const std::int64_t k = j.value("micro_batches", std::int64_t{1});
  if (k < 1)
    throw ProbeOutputError("the probe names " + std::to_string(k) + " micro-batches");
  return k;
}

PlanDump plan_of(const json& j) {
  PlanDump p;
  p.mode = j.at("mode").get<std::string>();
  p.batch = j.at("batch").get<std::int64_t>();
  p.micro_batches = micro_batches_of(j);
  p.checkpoint = j.value("checkpoint", std::string("None"));
  p.input_dtype = j.at("input_dtype").get<std::string>();
  p.loss = j.at("loss").get<std::string>();
  p.optimizer = j.at("optimizer").get<std::string>();
  p.precision = j.at("precision").get<std::string>();
  p.prefetch = j.at("prefetch").get<bool>();
  p.input_shape = j.at("input_shape").get<Dims>();
  p.output_shape = j.at("output_shape").get<Dims>();
  p.parameter_count = j.at("parameter_count").get<std::int64_t>();
  p.non_trainable_count = j.at("non_trainable_count").get<std::int64_t>();
  p.footprint = footprint_of(j.at("footprint"));
  p.host = host_of(j.at("host"));
  p.footprint.host = p.host.total;
  for (const json& l : j.at("layers"))
    p.layers.push_back(layer_of(l));
  const bool quantized = precision_dtypes(precision_kind(p.precision)).quantized;
  for (const json& b : j.at("buffers"))
    p.buffers.push_back(buffer_of(b, quantized));
  // Each layer's pass, from the groups (each [first, last], in order, covering every layer).
  for (const auto& [target, pass] :
       {std::pair{"cpu", &LayerRow::pass_cpu}, std::pair{"cuda", &LayerRow::pass_cuda}}) {
    for (const json& g : j.at("passes").at(target)) {
      const auto first = g.at(0).get<std::int64_t>(), last = g.at(1).get<std::int64_t>();
      if (first < 0 || last < first || last >= static_cast<std::int64_t>(p.layers.size()))
        throw ProbeOutputError("the probe names a pass of layers outside the model");
      for (std::int64_t i = first; i <= last; ++i)
        p.layers[static_cast<std::size_t>(i)].*pass = {first, last};
    }
  }
  for (const json& s : j.at("schedule")) {
    StepRow step{s.at("kind").get<std::string>(),
                 s.at("layer").get<std::int64_t>(),
                 s.at("live_activation_bytes").get<std::int64_t>(),
                 {}};
    for (const json& a : s.at("accesses"))
      step.accesses.push_back(
          {a.at(0).get<std::int64_t>(), a.at(1).get<std::int64_t>(), a.at(2).get<std::string>()});
    p.schedule.push_back(std::move(step));
  }
  return p;
}

}  // namespace

namespace {
// The precision named `name`, as name_of spells each; false for none.
bool find_precision(const std::string& name, PrecisionKind& out) {
  for (int i = 0; i < 256; ++i) {
    const auto k = static_cast<PrecisionKind>(i);
    const std::string_view spelled = name_of(k);
    if (spelled == "?")
      break;
    if (spelled == name) {
      out = k;
      return true;
    }
  }
  return false;
}
}  // namespace

PrecisionKind precision_kind(const std::string& name) {
  PrecisionKind k{};
  if (!find_precision(name, k))
    throw ProbeOutputError("the probe names an unknown precision '" + name + "'");
  return k;
}

std::int64_t slot_bytes(const PlanDump& plan) {
  PrecisionKind k{};
  return find_precision(plan.precision, k) && precision_dtypes(k).quantized
             ? std::int64_t{1} << staticnet::detail::quantized_alignment_log2
             : arena_alignment;
}

std::int64_t PlanDump::runs_per_step(std::int64_t step) const {
  return schedule.at(static_cast<std::size_t>(step)).kind == "update" ? 1 : micro_batches;
}

const char* label_of(Category c) {
  if (c == Category::optimizer_state)
    return "optimizer state";
  return c == Category::non_trainable ? "non-trainable" : name_of(c);
}

std::vector<ModelDump> parse_probe_output(std::string_view text) {
  try {
    const json j = json::parse(text);
    const int format = j.at("probe_format").get<int>();
    if (format != expected_probe_format)
      throw ProbeOutputError("the probe wrote format " + std::to_string(format) +
                             ", this "
                             "analyzer reads format " +
                             std::to_string(expected_probe_format) +
                             ": the staticnet headers and the staticnet command differ in version");
    std::vector<ModelDump> models;
    for (const json& m : j.at("models")) {
      ModelDump d;
      d.name = m.at("name").get<std::string>();
      d.model = m.at("model").get<std::string>();
      d.setup = m.at("setup").get<std::string>();
      d.plan = plan_of(m.at("plan"));
      for (const json& s : m.at("sweep")) {
        const bool applicable = s.value("applicable", true);
        SweepPoint point{s.at("batch").get<std::int64_t>(),
                         s.at("optimizer").get<std::string>(),
                         s.at("precision").get<std::string>(),
                         {},
                         micro_batches_of(s),
                         applicable ? std::string() : s.at("reason").get<std::string>(),
                         s.at("checkpoint").get<std::string>()};
        if (!applicable) {
          point.needs = s.value("needs", std::int64_t{0});
          d.not_applicable.push_back(std::move(point));
          continue;
        }
        point.footprint = footprint_of(s.at("footprint"));
        point.footprint.host = host_of(s.at("host")).total;
        point.step_flops = s.at("step_flops").get<std::int64_t>();
        point.recompute_flops = s.at("recompute_flops").get<std::int64_t>();
        d.sweep.push_back(std::move(point));
      }
      for (const json& b : m.at("max_batch"))
        d.max_batch.push_back({b.at("optimizer").get<std::string>(),
                               b.at("precision").get<std::string>(),
                               b.at("by_budget").get<std::vector<std::int64_t>>(),
                               micro_batches_of(b), b.at("checkpoint").get<std::string>()});
      for (const json& menu : m.at("fit")) {
        std::vector<FitOption>& options = d.fit.emplace_back();
        for (const json& o : menu)
          options.push_back(
              {o.at("remedy").get<std::string>(), o.at("batch").get<std::int64_t>(),
               o.at("micro_batches").get<std::int64_t>(), o.at("checkpoint").get<std::string>(),
               o.at("required").get<std::int64_t>(), o.at("step_flops").get<std::int64_t>(),
               o.at("recompute_flops").get<std::int64_t>()});
      }
      models.push_back(std::move(d));
    }
    return models;
  } catch (const json::exception& e) {
    throw ProbeOutputError(std::string("the probe's output is not the JSON expected: ") + e.what());
  }
}

}  // namespace staticnet::analyzer
