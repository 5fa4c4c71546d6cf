// Keras' MaxPool2D((3, 1), padding='same') written with the window as a type, as Conv2d's Kernel
// option is written: a pool takes the value sn::Kernel<3, 1>{}. The compiler's own error (before
// staticnet sees the model) must be explained.
#include <staticnet/staticnet.hpp>

namespace wand {
namespace sn = staticnet;
using Net =
    sn::Sequential<sn::Conv2d<8, sn::Kernel<4, 3>, sn::PaddingSame>, sn::ReLU,
                   sn::MaxPool2d<sn::Kernel<3, 1>, sn::PaddingSame>, sn::Flatten, sn::Linear<4>>;
using Training = sn::Training<sn::Input<sn::f32, 1, 128, 3>, sn::Batch<16>>;
STATICNET_MODEL(wand, Net, Training);
}  // namespace wand
