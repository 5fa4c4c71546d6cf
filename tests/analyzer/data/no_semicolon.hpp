// A header as a user may leave it: the STATICNET_MODEL line last, without its `;`, and no newline
// at the end of the file. The analyzer must take it as it takes the line with one.
#include <staticnet/staticnet.hpp>

namespace user {
namespace sn = staticnet;
using Net = sn::Sequential<sn::Linear<16>, sn::ReLU, sn::Linear<3>>;
using Training = sn::Training<sn::Input<sn::f32, 4>, sn::Batch<8>>;
}  // namespace user

STATICNET_MODEL(net, user::Net, user::Training)