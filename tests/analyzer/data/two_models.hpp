// Two registrations in one header, one of them inference only: both are reported, in order.
#include <staticnet/staticnet.hpp>

namespace two {
namespace sn = staticnet;
using Mlp = sn::Sequential<sn::Linear<32>, sn::ReLU, sn::Linear<3>>;
using Training = sn::Training<sn::Input<sn::f32, 16>, sn::Batch<8>, sn::Loss<sn::CrossEntropy>,
                              sn::Optimizer<sn::SGD>>;
using Serving = sn::Inference<sn::Input<sn::f32, 16>, sn::Batch<8>>;
STATICNET_MODEL(mlp_training, Mlp, Training);
STATICNET_MODEL(mlp_serving, Mlp, Serving);
}  // namespace two
