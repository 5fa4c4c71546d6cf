// A BatchNorm1d after a Linear: one value per channel per sample, so batch 1, and micro-batches of
// one under Accumulate<K>, do not plan (batch_norm_one_value_per_channel); a sweep leaves them out.
#include <staticnet/staticnet.hpp>

namespace batch_norm_flat {
namespace sn = staticnet;
using Net = sn::Sequential<sn::Linear<32>, sn::BatchNorm1d<>, sn::ReLU, sn::Linear<10>>;
using Setup = sn::Training<sn::Input<sn::f32, 64>, sn::Batch<8>>;
STATICNET_MODEL(normalised, Net, Setup);
}  // namespace batch_norm_flat
