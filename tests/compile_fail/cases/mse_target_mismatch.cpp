// MUST NOT COMPILE: an MSE target of 3 values per sample for a model that outputs 2.
//
// Input (8): 0 Linear<16>, 1 ReLU, 2 Linear<2>: output (batch, 2), one sample is (2).
// Target<f32, 3> is (3).
// Expected: mse_target_mismatch, output per sample (2), target per sample (3).
#include <staticnet/staticnet.hpp>

namespace sn = staticnet;

using Model = sn::Sequential<sn::Linear<16>, sn::ReLU, sn::Linear<2>>;
using Setup =
    sn::Training<sn::Input<sn::f32, 8>, sn::Batch<32>, sn::Loss<sn::MSE>, sn::Target<sn::f32, 3>>;

constexpr auto& p = sn::plan<Model, Setup>();

int main() {
  return 0;
}
