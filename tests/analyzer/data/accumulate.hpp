// Gradient accumulation: prefetch.hpp's model and batch, the step run as 4 micro-batches of 8
// (check_analyzer.py derives its numbers by hand: the inputs region holds the whole batch of 32,
// the activations one micro-batch's).
#include <staticnet/staticnet.hpp>

namespace accumulate {
namespace sn = staticnet;
using Net = sn::Sequential<sn::Conv2d<8, sn::Kernel<3>>, sn::ReLU, sn::Flatten, sn::Linear<10>>;
using Setup = sn::Training<sn::Input<sn::f32, 1, 28, 28>, sn::Batch<32>, sn::Optimizer<sn::Adam>,
                           sn::Accumulate<4>>;
STATICNET_MODEL(accumulating, Net, Setup);
}  // namespace accumulate
