// MUST NOT COMPILE: a Linear(64 → 64) at a batch of 16 (MSE, SGD) on a device of 42000 bytes.
// The whole batch needs 49,920 B (tests/core/test_accumulate.cpp derives its buffers by hand;
// tests/core/test_fit.cpp the sums used here): does_not_fit<required_bytes<49920>, ...>. Then
// assert_fits names what fit() finds: sixteen micro-batches of one sample need 42,240; a batch of 8
// needs 41,728 (9: 42,752): fits_with_smaller_batch<batch<8>, needs_bytes<41728>>.
#include <staticnet/staticnet.hpp>

namespace sn = staticnet;

using Square = sn::Sequential<sn::Linear<64>>;
using Whole = sn::Training<sn::Input<sn::f32, 64>, sn::Batch<16>, sn::Loss<sn::MSE>>;

static_assert(sn::assert_fits<Square, Whole, sn::Device{sn::Bytes{42000}, sn::Bytes{0}}>());

int main() {
  return 0;
}
