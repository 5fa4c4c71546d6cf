#pragma once
// The edge between types and values: flatten a model type into an array of nodes (a layer and
// the tensors it reads), read a setup type into a SetupDesc, lower both to a Graph, and turn a
// problem into a compile error with the numbers.
#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <type_traits>
#include <utility>

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

// ---- where a flattened layer sits in the model as written (for its error only) ----

enum class NestingStep : std::uint8_t { entry, body, shortcut, sum };

// A path from the model down to one layer, outermost step first (see error::nesting). Deeper
// paths than max_depth keep their outer steps, and nesting_of_t says that it stops short.
struct Nesting {
  static constexpr int max_depth = 16;
  NestingStep steps[max_depth]{};
  std::int64_t entries[max_depth]{};  // a step `entry`: its position in the Sequential, from 1
  int depth = 0;

  constexpr void push(NestingStep step, std::int64_t entry = 0) {
    if (depth < max_depth) {
      steps[depth] = step;
      entries[depth] = entry;
    }
    ++depth;
  }
  constexpr void pop() { --depth; }
};

// Walks L as append_nodes() does, counting flattened layers in `next`, and stops with `found` the
// path of layer `target`. Braced lists rather than folds, for the same reason as there.
template <class L>
constexpr void locate(std::size_t target, std::size_t& next, Nesting& at, Nesting& found,
                      bool& done) {
  if constexpr (std::is_same_v<L, Identity>) {
    return;
  } else if constexpr (is_sequential<L>::value) {
    [&]<class... Children>(Sequential<Children...>*) {
      std::int64_t position = 0;
      [[maybe_unused]] const int in_order[] = {
          (done ? 0
                : (at.push(NestingStep::entry, ++position),
                   locate<Children>(target, next, at, found, done), at.pop(), 0))...};
    }(static_cast<L*>(nullptr));
  } else if constexpr (is_residual<L>::value) {
    [&]<class Body, class Shortcut>(Residual<Body, Shortcut>*) {
      at.push(NestingStep::body);
      locate<Body>(target, next, at, found, done);
      at.pop();
      if (done)
        return;
      at.push(NestingStep::shortcut);
      locate<Shortcut>(target, next, at, found, done);
      at.pop();
      if (done)
        return;
      if (next++ == target) {  // the Add that closes the block
        found = at;
        found.push(NestingStep::sum);
        done = true;
      }
    }(static_cast<L*>(nullptr));
  } else {
    if (next++ == target) {
      found = at;
      done = true;
    }
  }
}

template <Model M>
constexpr Nesting nesting_of(std::int64_t layer) {
  Nesting at, found;
  std::size_t next = 0;
  bool done = false;
  if (layer >= 0)
    locate<M>(static_cast<std::size_t>(layer), next, at, found, done);
  return found;
}

template <NestingStep Step, std::int64_t Entry>
struct nesting_step;
template <std::int64_t Entry>
struct nesting_step<NestingStep::entry, Entry> {
  using type = error::entry<Entry>;
};
template <std::int64_t Entry>
struct nesting_step<NestingStep::body, Entry> {
  using type = error::residual_body;
};
template <std::int64_t Entry>
struct nesting_step<NestingStep::shortcut, Entry> {
  using type = error::residual_shortcut;
};
template <std::int64_t Entry>
struct nesting_step<NestingStep::sum, Entry> {
  using type = error::residual_sum;
};

template <Nesting N, std::size_t... I>
auto nesting_type(std::index_sequence<I...>) {
  if constexpr (N.depth > Nesting::max_depth)  // the steps kept, then a mark for the rest
    return error::nesting<typename nesting_step<N.steps[I], N.entries[I]>::type...,
                          error::nested_deeper>{};
  else
    return error::nesting<typename nesting_step<N.steps[I], N.entries[I]>::type...>{};
}

// error::nesting<...> for layer `Layer` of M.
template <Model M, std::int64_t Layer>
using nesting_of_t = decltype(nesting_type<nesting_of<M>(Layer)>(
    std::make_index_sequence<static_cast<std::size_t>(
        nesting_of<M>(Layer).depth < Nesting::max_depth ? nesting_of<M>(Layer).depth
                                                        : Nesting::max_depth)>{}));
}  // namespace detail

// The model lowered for the setup. A wrong model or setup fails to compile here, with the
// numbers and the layer's place in the model (see errors.hpp); the Graph returned then carries
// the error and nothing else.
template <Model M, Setup S>
constexpr const auto& lower() {
  constexpr const auto& graph = detail::graph_v<M, S>;
  if constexpr (!graph.error.ok())
    (void)sizeof(error::reporter<graph.error, detail::nesting_of_t<M, graph.error.layer>>);
  return graph;
}

}  // namespace staticnet
