// MUST NOT COMPILE: a Linear(64 → 64) at a batch of 16 (MSE, SGD) on a device of 34559 bytes.
// The whole batch needs 49,920 B (tests/core/test_accumulate.cpp derives its buffers by hand;
// tests/core/test_fit.cpp the sums used here): does_not_fit<required_bytes<49920>, ...>. Then
// assert_fits names what fit() finds: a batch of one sample needs 34,560, one byte more:
// fits_with_nothing<smallest_batch<1>, needs_bytes<34560>>.
#include <staticnet/staticnet.hpp>

namespace sn = staticnet;

using Square = sn::Sequential<sn::Linear<64>>;
using Whole = sn::Training<sn::Input<sn::f32, 64>, sn::Batch<16>, sn::Loss<sn::MSE>>;

static_assert(sn::assert_fits<Square, Whole, sn::Device{sn::Bytes{34559}, sn::Bytes{0}}>());

int main() {
  return 0;
}
