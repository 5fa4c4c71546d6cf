// The generator of a model trained from a u8 input: the trainers' loaders write f32 samples, so
// the generator refuses it, naming the input's dtype (tests/codegen/CMakeLists.txt runs it). Made
// by hand rather than by staticnet_model(), whose build would run it and fail.
#include <staticnet/codegen/generate.hpp>
#include <staticnet/staticnet.hpp>

namespace sn = staticnet;

using Net = sn::Sequential<sn::Flatten, sn::Linear<3>>;
using U8Training = sn::Training<sn::Input<sn::u8, 1, 4, 4>, sn::Batch<4>>;

int main(int argc, char** argv) {
  return staticnet::codegen::generator_main<Net, U8Training>(
      argc, argv, {"u8_input", "u8_input_generator.cpp", "Net", "U8Training"});
}
