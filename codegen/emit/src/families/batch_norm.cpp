// BatchNorm (1d and 2d) with the activation fused after it (ResNet's ReLU), described once for
// every backend (pass_description.hpp). Training: the batch's statistics and the running
// statistics' update, then the normalisation; evaluation, and inference, the running statistics.
// Backward: per channel the two sums (the activation's derivative applied on the way), then dx.
//
// A host runs the element passes a (sample, channel) plane per call (BatchNorm1d, whose planes
// are one element: a sample's row), and the sums a channel per call (BatchNorm1d: a block of
// channels, whose accumulators stay in registers). A GPU runs an element per thread, and a block
// of threads per channel's sums.
#include <stdexcept>
#include <string>

#include "pass_description.hpp"
#include "staticnet/codegen/naming.hpp"
#include "staticnet/codegen/section_text.hpp"
#include "staticnet/codegen/text.hpp"

namespace staticnet::codegen {
namespace {

// Channels per host call of BatchNorm1d's sums: a block's accumulators stay in registers, and a
// layer of 128 channels still splits over 8 calls.
constexpr std::int64_t batch_norm_1d_block = 16;

// How the passes split a BatchNorm's input, and the calls they make. `templates` follow the
// geometry in a body's template arguments (", k::ReLU"); `arguments` follow the index
// ("x, stats, gamma, beta, y").
struct NormPasses {
  std::string geometry;  // "norm_3"
  bool by_rows = false;  // BatchNorm1d
  std::int64_t elements = 0, channels = 0, rows = 0, planes = 0, blocks = 0;

  // Every element: k::<body>(i, ...) a thread each on a GPU; on a host, a plane (row) per call
  // of k::<body>_plane (_row).
  MapPass each_element(const std::string& comment, const std::string& body,
                       const std::string& templates, const std::string& arguments) const {
    const std::string t = "<" + geometry + templates + ">";
    return {comment,
            {"i"},
            {elements},
            "k::" + body + t + "(i, " + arguments + ");",
            by_rows ? PassForm{{"n"}, {rows}, "k::" + body + "_row" + t + "(n, " + arguments + ");"}
                    : PassForm{{"plane"},
                               {planes},
                               "k::" + body + "_plane" + t + "(plane, " + arguments + ");"}};
  }
  // Every channel's sums: a block of threads each on a GPU (g::per_block::<body>); on a host a
  // channel per call of k::<body>, or for BatchNorm1d a block of channels per call of
  // k::<body>_block.
  MapPass each_channel(const std::string& comment, const std::string& body,
                       const std::string& templates, const std::string& arguments) const {
    const std::string t = "<" + geometry + templates + ">";
    MapPass pass{
        comment,
        {"c"},
        {channels},
        "g::per_block::" + body + t + "(c, " + arguments + ");",
        by_rows ? PassForm{{"block"},
                           {blocks},
                           "k::" + body + "_block<" + geometry + templates + ", " +
                               std::to_string(batch_norm_1d_block) + ">(block, " + arguments + ");"}
                : PassForm{{"c"}, {channels}, "k::" + body + t + "(c, " + arguments + ");"}};
    pass.per_block = true;
    return pass;
  }
};

}  // namespace

GroupPasses describe_batch_norm(const ModelView& model, const FusedGroup& g, ArenaText& arena) {
  const LayerPlan& l = model.layers.at(static_cast<std::size_t>(g.norm));
  const Shape& x = l.input_shape;
  const LayerPlan* activation =
      g.activation >= 0 ? &model.layers.at(static_cast<std::size_t>(g.activation)) : nullptr;
  const int y_buffer = activation ? activation->output_buffer : l.output_buffer;
  const NormPasses s{.geometry = "norm_" + std::to_string(g.norm),
                     .by_rows = x.rank == 2,
                     .elements = x.elements(),
                     .channels = x[1],
                     .rows = x[0],
                     .planes = x[0] * x[1],
                     .blocks = (x[1] + batch_norm_1d_block - 1) / batch_norm_1d_block};
  const std::string act = ", " + fused_activation(model, g);
  const std::string then = activation ? ", then the " + std::string(name_of(activation->kind)) : "";
  auto reads = [&](const std::string& name, int buffer, const std::string& suffix = "") {
    return buffer_tensor(arena, name, buffer, false, suffix);
  };

  GroupPasses d;
  Direction& forward = d.forward.emplace();
  forward.tensors = {
      reads("x", l.input_buffer),
      {"gamma", "float", false, arena.parameter(l.weight_offset, BufferRole::parameters),
       "// " + weight_name(g.norm) + " (γ)"},
      {"beta", "float", false, arena.parameter(l.bias_offset, BufferRole::parameters),
       "// " + bias_name(g.norm) + " (β)"},
      // Training updates the running statistics; inference only reads them.
      {"running", "float", model.training(),
       arena.parameter(l.statistics_offset, BufferRole::non_trainable),
       "// non_trainable: running mean, then running variance"},
      buffer_tensor(arena, "y", y_buffer, true)};
  const MapPass with_running_statistics =
      s.each_element("Each element: normalised by the running statistics" + then + ".",
                     "batch_norm_inference", act, "x, running, gamma, beta, y");
  if (!model.training()) {
    forward.passes = {with_running_statistics};
    return d;
  }
  if (l.statistics_buffer == no_buffer)
    throw std::logic_error("a BatchNorm in training without a statistics buffer");
  const std::string stats_note = arena.note(l.statistics_buffer) + ": mean, then 1/√(var + ε)";
  forward.tensors.push_back({"stats", "float", true, arena.at(l.statistics_buffer), stats_note});
  forward.passes = {
      s.each_channel("Per channel: the batch mean and 1/√(var + ε), and the running statistics' "
                     "update.",
                     "batch_norm_statistics", "", "x, stats, running"),
      s.each_element("Each element: normalised by its channel's batch statistics" + then + ".",
                     "batch_norm_forward", act, "x, stats, gamma, beta, y")};
  forward.evaluation = {with_running_statistics};
  // Recomputed (checkpointing): normalised by the statistics its forward kept, as PyTorch's
  // checkpoint does not (it normalises again by new ones and updates the running statistics a
  // second time).
  Direction& again = d.recompute.emplace();
  again.tensors = {reads("x", l.input_buffer),
                   forward.tensors[1],
                   forward.tensors[2],
                   {"stats", "float", false, arena.at(l.statistics_buffer), stats_note},
                   buffer_tensor(arena, "y", y_buffer, true)};
  again.passes = {forward.passes[1]};
  if (!l.runs_backward)
    return d;

  Printer::Vars v;
  batch_norm_backward_vars(v, model, g, arena);
  // Under Accumulate<K> dγ and dβ hold the earlier micro-batches' sums too: part 1 keeps this
  // micro-batch's in the statistics buffer, after the mean and 1/std (its second half, which the
  // plan adds under accumulation), and part 2 reads them there.
  const bool accumulates = model.micro_batches() > 1;
  const std::string sums = accumulates ? ", stats + " + literal(2 * s.channels) : "";
  const std::string part_2_sums =
      accumulates ? "stats + " + literal(3 * s.channels) + ", stats + " + literal(2 * s.channels)
                  : "dgamma, dbeta";
  Direction& backward = d.backward.emplace();
  backward.tensors = {
      reads("x", l.input_buffer),
      {"stats", "float", accumulates, arena.at(l.statistics_buffer),
       accumulates ? arena.note(l.statistics_buffer) +
                         ": mean, 1/√(var + ε), then this micro-batch's Σdy and Σ dy·x̂"
                   : stats_note},
      {"gamma", "float", false, arena.parameter(l.weight_offset, BufferRole::parameters),
       "// " + weight_name(g.norm) + " (γ)"},
      {"dy", v["dy_element"], true, v["dy"], v["dy_note"]},
      {"dgamma", "float", true, v["dgamma"], v["dgamma_note"]},
      {"dbeta", "float", true, v["dbeta"], v["dbeta_note"]}};
  if (activation)
    backward.tensors.push_back(reads("y", y_buffer, ", saved"));
  backward.passes = {s.each_channel(
      activation ? "Per channel: d = " + std::string(name_of(activation->kind)) +
                       "'(y)·dy (left in dy), Σd into dβ and Σ d·x̂ into dγ."
                 : "Per channel: Σdy into dβ and Σ dy·x̂ into dγ.",
      "batch_norm_backward_sums", act,
      std::string("x, ") + (activation ? "y" : "nullptr") + ", stats, dy, dgamma, dbeta" + sums)};
  if (l.input_gradient_buffer != no_buffer) {
    backward.tensors.push_back(input_gradient_tensor(l, arena));
    backward.passes.push_back(s.each_element(
        "Each element: dx from d and its channel's two sums.", "batch_norm_backward_input",
        ", " + std::string(l.accumulates_input_gradient ? "true" : "false"),
        "x, stats, gamma, dy, " + part_2_sums + ", dx"));
  }
  return d;
}

}  // namespace staticnet::codegen
