// MUST NOT COMPILE: CrossEntropy on a rank-4 output (the model forgot Flatten + Linear).
//
// Input (1, 8, 8), Batch 4. 0 Conv2d<10, Kernel<3>>: (8-3)/1+1 = 6, output (4, 10, 6, 6).
// CrossEntropy (the default loss) needs (batch, classes).
// Expected: cross_entropy_needs_flat_logits, output shape (4, 10, 6, 6).
#include <staticnet/staticnet.hpp>

namespace sn = staticnet;

using Model = sn::Sequential<sn::Conv2d<10, sn::Kernel<3>>, sn::ReLU>;
using Setup = sn::Training<sn::Input<sn::f32, 1, 8, 8>, sn::Batch<4>, sn::Loss<sn::CrossEntropy>>;

constexpr auto& p = sn::plan<Model, Setup>();

int main() {
  return 0;
}
