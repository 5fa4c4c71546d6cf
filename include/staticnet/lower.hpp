#pragma once
// The edge between types and values: flatten a model type into an array of nodes (a layer and
// the tensors it reads), read a setup type into a SetupDesc, lower both to a Graph, and turn a
// problem into a compile error with the numbers.
#include <array>
#include <cstddef>
#include <initializer_list>
#include <type_traits>

#include "staticnet/errors.hpp"
#include "staticnet/graph.hpp"
#include "staticnet/layers.hpp"
#include "staticnet/setup.hpp"

namespace staticnet {

namespace detail {

// Pack expansions in braced lists, not fold expressions: clang nests a fold of N terms N deep
// and refuses more than 256, while models of thousands of layers must flatten.
template <class L>
struct flat_count : std::integral_constant<std::size_t, 1> {};
template <>
struct flat_count<Identity> : std::integral_constant<std::size_t, 0> {};
template <class... L>
struct flat_count<Sequential<L...>> {
  static constexpr std::size_t value = [] {
    std::size_t sum = 0;
    for (std::size_t n : {flat_count<L>::value...})
      sum += n;
    return sum;
  }();
};
template <class Body, class Shortcut>
struct flat_count<Residual<Body, Shortcut>> {
  static_assert(flat_count<Body>::value > 0,
                "staticnet: a Residual's body needs at least one layer; for x + Layer(x) write "
                "Residual<Layer> (the shortcut defaults to Identity)");
  static constexpr std::size_t value = flat_count<Body>::value + flat_count<Shortcut>::value + 1;
};

// Appends L's nodes, reading the tensor `current`; returns the tensor L's output is. `out` is a
// built-in pointer: constant evaluation charges std::array's subscript several calls (see
// static_vector.hpp).
template <class L>
constexpr std::int32_t append_nodes(NodeDesc* out, std::size_t& next, std::int32_t current) {
  if constexpr (std::is_same_v<L, Identity>) {
    return current;
  } else if constexpr (is_sequential<L>::value) {
    [&]<class... Children>(Sequential<Children...>*) {
      [[maybe_unused]] const int in_order[] = {
          (current = append_nodes<Children>(out, next, current), 0)...};
    }(static_cast<L*>(nullptr));
    return current;
  } else if constexpr (is_residual<L>::value) {
    return [&]<class Body, class Shortcut>(Residual<Body, Shortcut>*) {
      const auto first = static_cast<std::int32_t>(next);
      const std::int32_t body = append_nodes<Body>(out, next, current);
      const std::int32_t shortcut = append_nodes<Shortcut>(out, next, current);
      NodeDesc& add = out[next];
      add.layer = LayerDesc::of(LayerKind::Add);
      add.inputs[0] = body;
      add.inputs[1] = shortcut;
      add.block_first = first;
      return static_cast<std::int32_t>(next++);
    }(static_cast<L*>(nullptr));
  } else {
    static_assert(Layer<L>, "staticnet: not a layer (expected e.g. sn::Linear<10>, sn::ReLU)");
    out[next].layer = L::desc();
    out[next].inputs[0] = current;
    return static_cast<std::int32_t>(next++);
  }
}

}  // namespace detail

// The model's nodes, flattened, in order: each reads the nodes it names (see NodeDesc).
template <Model M>
constexpr auto flatten() {
  static_assert(detail::flat_count<M>::value > 0, "staticnet: a model needs at least one layer");
  std::array<NodeDesc, detail::flat_count<M>::value> out{};
  std::size_t next = 0;
  detail::append_nodes<M>(out.data(), next, model_input);
  return out;
}

template <Model M>
inline constexpr std::size_t layer_count = detail::flat_count<M>::value;

namespace detail {
// One constant per model and setup, so that lowering is its own constant evaluation (see
// plan.hpp's entry points) and the graph exists once however many stages read it.
template <Model M, Setup S>
inline constexpr auto graph_v = lower(flatten<M>(), S::desc());
}  // namespace detail

// The model lowered for the setup. A wrong model or setup fails to compile here, with the
// numbers (see errors.hpp); the Graph returned then carries the error and nothing else.
template <Model M, Setup S>
constexpr const auto& lower() {
  constexpr const auto& graph = detail::graph_v<M, S>;
  if constexpr (!graph.error.ok())
    (void)sizeof(error::reporter<graph.error>);
  return graph;
}

}  // namespace staticnet
