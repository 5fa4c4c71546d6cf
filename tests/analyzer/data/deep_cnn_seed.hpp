// Seed 001's DeepCNN exactly as the seed wrote it: nn.Linear(128*4*4, 10) after three 2x2 pools
// of a 64x64 input, which leave 8x8, so 128 * 8 * 8 = 8192 features arrive, not 2048. The
// analyzer must decode the compile error into one sentence with those numbers.
#include <staticnet/staticnet.hpp>

namespace seed {
namespace sn = staticnet;
using DeepCNN = sn::Sequential<sn::Conv2d<32, sn::Kernel<3>, sn::Padding<1>>, sn::ReLU,
                               sn::MaxPool2d<2>, sn::Conv2d<64, sn::Kernel<3>, sn::Padding<1>>,
                               sn::ReLU, sn::MaxPool2d<2>,
                               sn::Conv2d<128, sn::Kernel<3>, sn::Padding<1>>, sn::ReLU,
                               sn::MaxPool2d<2>, sn::Flatten, sn::Linear<10, sn::InFeatures<2048>>>;
using Training = sn::Training<sn::Input<sn::f32, 3, 64, 64>, sn::Batch<64>,
                              sn::Loss<sn::CrossEntropy>, sn::Optimizer<sn::Adam>>;
STATICNET_MODEL(deep_cnn, DeepCNN, Training);
}  // namespace seed
