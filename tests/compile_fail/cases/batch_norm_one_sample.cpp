// MUST NOT COMPILE: a BatchNorm1d trained on a batch of one sample: each of its channels has one
// value per step, which normalises to 0 (PyTorch refuses it: "Expected more than 1 value per
// channel when training").
//
// Expected: batch_norm_one_value_per_channel at layer 1 (BatchNorm1d), samples 1, values per
// channel 1 (Batch<1> × no positions).
#include <staticnet/staticnet.hpp>

namespace sn = staticnet;

using Model = sn::Sequential<sn::Linear<32>, sn::BatchNorm1d<>, sn::ReLU, sn::Linear<10>>;
using Setup = sn::Training<sn::Input<sn::f32, 64>, sn::Batch<1>>;

constexpr auto& p = sn::plan<Model, Setup>();

int main() {
  return 0;
}
