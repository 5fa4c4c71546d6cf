// MUST NOT COMPILE: Precision<Int8> is TensorFlow Lite's int8 scheme for inference; a training
// step in it is refused, naming the precision.
#include <staticnet/staticnet.hpp>

namespace sn = staticnet;

using Net = sn::Sequential<sn::Flatten, sn::Linear<10>>;
using Setup = sn::Training<sn::Input<sn::f32, 1, 8, 8>, sn::Batch<32>,
                           sn::Precision<sn::Int8>>;

constexpr auto& p = sn::plan<Net, Setup>();

int main() {
  return 0;
}
