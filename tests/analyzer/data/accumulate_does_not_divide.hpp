// Accumulate<3> cannot split Batch<8> into micro-batches of equal size: the analyzer explains
// micro_batches_do_not_divide with both numbers.
#include <staticnet/staticnet.hpp>

namespace uneven {
namespace sn = staticnet;
using Net = sn::Sequential<sn::Linear<16>, sn::ReLU, sn::Linear<4>>;
using Setup = sn::Training<sn::Input<sn::f32, 8>, sn::Batch<8>, sn::Accumulate<3>>;
STATICNET_MODEL(uneven, Net, Setup);
}  // namespace uneven
