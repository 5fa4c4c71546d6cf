// Checkpointing through staticnet analyze: tests/core/test_checkpoint.cpp's 50-layer MLP (25
// pairs of Linear(64) and ReLU, batch 16, MSE, SGD) under Checkpoint<Sqrt>, whose bytes and
// recompute FLOPs it derives by hand (check_analyzer.py's check_checkpoint_numbers uses them).
#include <staticnet/staticnet.hpp>

namespace mlp50 {
namespace sn = staticnet;
using Net =
    sn::Sequential<sn::Linear<64>, sn::ReLU, sn::Linear<64>, sn::ReLU, sn::Linear<64>, sn::ReLU,
                   sn::Linear<64>, sn::ReLU, sn::Linear<64>, sn::ReLU, sn::Linear<64>, sn::ReLU,
                   sn::Linear<64>, sn::ReLU, sn::Linear<64>, sn::ReLU, sn::Linear<64>, sn::ReLU,
                   sn::Linear<64>, sn::ReLU, sn::Linear<64>, sn::ReLU, sn::Linear<64>, sn::ReLU,
                   sn::Linear<64>, sn::ReLU, sn::Linear<64>, sn::ReLU, sn::Linear<64>, sn::ReLU,
                   sn::Linear<64>, sn::ReLU, sn::Linear<64>, sn::ReLU, sn::Linear<64>, sn::ReLU,
                   sn::Linear<64>, sn::ReLU, sn::Linear<64>, sn::ReLU, sn::Linear<64>, sn::ReLU,
                   sn::Linear<64>, sn::ReLU, sn::Linear<64>, sn::ReLU, sn::Linear<64>, sn::ReLU,
                   sn::Linear<64>, sn::ReLU>;
using Sqrt = sn::Training<sn::Input<sn::f32, 64>, sn::Batch<16>, sn::Loss<sn::MSE>,
                          sn::Checkpoint<sn::Sqrt>>;
STATICNET_MODEL(mlp50_sqrt, Net, Sqrt);
}  // namespace mlp50
