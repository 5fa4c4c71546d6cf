// MUST NOT COMPILE: Batch<8> as Accumulate<8> gives micro-batches of one sample, and a BatchNorm
// normalises each micro-batch on its own: one value per channel, as at Batch<1>.
//
// Expected: batch_norm_one_value_per_channel at layer 1 (BatchNorm1d), samples 1 (8 / 8), values
// per channel 1.
#include <staticnet/staticnet.hpp>

namespace sn = staticnet;

using Model = sn::Sequential<sn::Linear<32>, sn::BatchNorm1d<>, sn::ReLU, sn::Linear<10>>;
using Setup = sn::Training<sn::Input<sn::f32, 64>, sn::Batch<8>, sn::Accumulate<8>>;

constexpr auto& p = sn::plan<Model, Setup>();

int main() {
  return 0;
}
