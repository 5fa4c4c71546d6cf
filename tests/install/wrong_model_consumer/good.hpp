// A small model whose registration is the last line, without its `;` (and no final newline).
#include <staticnet/staticnet.hpp>

namespace user {
namespace sn = staticnet;
using Net = sn::Sequential<sn::Linear<8>, sn::ReLU, sn::Linear<3>>;
using Training = sn::Training<sn::Input<sn::f32, 4>, sn::Batch<8>>;
}  // namespace user

STATICNET_MODEL(good, user::Net, user::Training)