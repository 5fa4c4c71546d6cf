// MUST NOT COMPILE: a Training setup without Input<...>: the model's input shape is unknown.
//
// Expected: missing_input (setup option Input), and the message suggesting sn::Input<...>.
#include <staticnet/staticnet.hpp>

namespace sn = staticnet;

using Model = sn::Sequential<sn::Linear<32>, sn::ReLU, sn::Linear<10>>;
using Setup = sn::Training<sn::Batch<8>, sn::Loss<sn::CrossEntropy>, sn::Optimizer<sn::Adam>>;

constexpr auto& p = sn::plan<Model, Setup>();

int main() {
  return 0;
}
