// MUST NOT COMPILE: Input written with the batch in it, (N, C, H, W): one sample has at most 3
// dimensions and the batch goes in Batch<N>.
//
// Expected: input_rank_too_large with 4 dimensions written.
#include <staticnet/staticnet.hpp>

namespace sn = staticnet;

using Model = sn::Sequential<sn::Flatten, sn::Linear<10>>;
using Setup = sn::Training<sn::Input<sn::f32, 32, 3, 28, 28>, sn::Batch<32>>;

constexpr auto& p = sn::plan<Model, Setup>();

int main() {
  return 0;
}
