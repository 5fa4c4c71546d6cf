// A wrong model that registers nothing, analyzed by naming it: staticnet analyze --model
// nested::Net --setup nested::Training. Layer 3 (the 2nd entry of the inner Sequential that is the
// 2nd entry of the outer one) is written for 64 features, and 32 arrive. The error must be said
// at the line that declares Net (9), in the model's own nesting.
#include <staticnet/staticnet.hpp>

namespace nested {
namespace sn = staticnet;
using Net = sn::Sequential<sn::Sequential<sn::Linear<64>, sn::ReLU>,
                           sn::Sequential<sn::Linear<32>, sn::Linear<10, sn::InFeatures<64>>>>;
using Training = sn::Training<sn::Input<sn::f32, 100>, sn::Batch<16>>;
}  // namespace nested
