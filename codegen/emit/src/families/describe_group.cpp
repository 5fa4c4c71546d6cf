// Which family describes a group, in the order the emitters have always dispatched in.
#include "pass_description.hpp"

namespace staticnet::codegen {

bool is_described(const FusedGroup& g) {
  return g.product < 0 && g.view < 0 && (g.norm >= 0 || g.grouped >= 0 || is_map_group(g));
}

GroupPasses describe_group(const ModelView& model, const FusedGroup& g, ArenaText& arena) {
  if (g.norm >= 0)
    return describe_batch_norm(model, g, arena);
  if (g.grouped >= 0)
    return describe_direct_conv(model, g, arena);
  return describe_map_group(model, g, arena);
}

}  // namespace staticnet::codegen
