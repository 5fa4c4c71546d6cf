// MUST NOT COMPILE: under Precision<Int8> every BatchNorm folds into the convolution or Linear
// before it, as TensorFlow Lite's converter folds it. Here layer 2, the BatchNorm, reads layer 1,
// a ReLU (one reader: the BatchNorm itself), so there is nothing to fold it into.
#include <staticnet/staticnet.hpp>

namespace sn = staticnet;

using Net = sn::Sequential<sn::Conv2d<8, sn::Kernel<3>>, sn::ReLU, sn::BatchNorm2d<>,
                           sn::Flatten, sn::Linear<10>>;
using Setup = sn::Inference<sn::Input<sn::f32, 1, 8, 8>, sn::Precision<sn::Int8>>;

constexpr auto& p = sn::plan<Net, Setup>();

int main() {
  return 0;
}
