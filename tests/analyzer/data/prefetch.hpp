// A training setup with Prefetch: the inputs region holds the batch and, beside it, the next one.
#include <staticnet/staticnet.hpp>

namespace prefetch {
namespace sn = staticnet;
using Net = sn::Sequential<sn::Conv2d<8, sn::Kernel<3>>, sn::ReLU, sn::Flatten, sn::Linear<10>>;
using Setup = sn::Training<sn::Input<sn::f32, 1, 28, 28>, sn::Batch<32>, sn::Optimizer<sn::Adam>,
                           sn::Prefetch>;
STATICNET_MODEL(prefetching, Net, Setup);
}  // namespace prefetch
