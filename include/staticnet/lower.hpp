#pragma once
// The edge between types and values: flatten a model type into an array of layer descriptions,
// read a setup type into a SetupDesc, lower both to a Graph, and turn a problem into a compile
// error with the numbers.
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
template <class... L>
struct flat_count<Sequential<L...>> {
  static constexpr std::size_t value = [] {
    std::size_t sum = 0;
    for (std::size_t n : {flat_count<L>::value...})
      sum += n;
    return sum;
  }();
};

template <class L, std::size_t N>
constexpr void append_layers(std::array<LayerDesc, N>& out, std::size_t& next) {
  if constexpr (is_sequential<L>::value) {
    [&]<class... Children>(Sequential<Children...>*) {
      [[maybe_unused]] const int in_order[] = {(append_layers<Children>(out, next), 0)...};
    }(static_cast<L*>(nullptr));
  } else {
    static_assert(Layer<L>, "staticnet: not a layer (expected e.g. sn::Linear<10>, sn::ReLU)");
    out[next++] = L::desc();
  }
}

}  // namespace detail

// The model's layers, flattened, in order.
template <Model M>
constexpr auto flatten() {
  std::array<LayerDesc, detail::flat_count<M>::value> out{};
  std::size_t next = 0;
  detail::append_layers<M>(out, next);
  return out;
}

template <Model M>
inline constexpr std::size_t layer_count = detail::flat_count<M>::value;

// The model lowered for the setup. A wrong model or setup fails to compile here, with the
// numbers (see errors.hpp); the Graph returned then carries the error and nothing else.
template <Model M, Setup S>
constexpr auto lower() {
  constexpr auto graph = lower(flatten<M>(), S::desc());
  if constexpr (!graph.error.ok())
    error::report<graph.error>();
  return graph;
}

}  // namespace staticnet
