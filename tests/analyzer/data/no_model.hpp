// A valid header that registers nothing: the analyzer must say how to register a model.
#include <staticnet/staticnet.hpp>

namespace plain {
using Net = staticnet::Sequential<staticnet::Linear<4>>;
using Training = staticnet::Training<staticnet::Input<staticnet::f32, 8>>;
}  // namespace plain
