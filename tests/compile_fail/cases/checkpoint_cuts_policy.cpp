// MUST NOT COMPILE: a policy of the user's own that names CheckpointKind::cuts, the planner's own
// carrier of a cut set (SetupDesc::checkpoint_cuts), which Checkpoint<P> would leave empty: the
// setup would plan as None while the reports named a policy "Cuts".
#include <staticnet/staticnet.hpp>

namespace sn = staticnet;

struct Mine {
  static constexpr sn::CheckpointKind kind = sn::CheckpointKind::cuts;
  static constexpr std::int64_t every = 0;
};
using Net = sn::Sequential<sn::Linear<8>, sn::ReLU, sn::Linear<2>>;
using Setup = sn::Training<sn::Input<sn::f32, 4>, sn::Batch<4>, sn::Loss<sn::MSE>,
                           sn::Checkpoint<Mine>>;
inline constexpr auto& plan = sn::plan<Net, Setup>();

int main() {
  return 0;
}
