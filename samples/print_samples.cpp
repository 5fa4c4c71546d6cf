// staticnet_samples: prints each sample model's shapes, layer table, memory footprint of one
// training step, and how it fits the device profiles. Every number below was computed by the
// compiler; this program only formats it.
//
//   staticnet_samples            all samples
//   staticnet_samples lenet5 mlp  only those (names as listed, any case)
#include <array>
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <iterator>
#include <string>
#include <string_view>

#include <staticnet/print.hpp>
#include <staticnet/staticnet.hpp>

#include "samples/deep_cnn.hpp"
#include "samples/larger_conv_network.hpp"
#include "samples/lenet5.hpp"
#include "samples/linear_regression.hpp"
#include "samples/mlp.hpp"
#include "samples/simple_cnn.hpp"
#include "samples/small_network.hpp"

namespace sn = staticnet;
namespace ss = staticnet::samples;

namespace {

// Every profile of include/staticnet/device.hpp, in its order.
constexpr auto devices = [] {
  std::array<sn::Device, std::size(sn::device::profiles)> d{};
  for (std::size_t i = 0; i < d.size(); ++i)
    d[i] = sn::device::profiles[i].device;
  return d;
}();

std::string lower_case(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

struct Summary {
  std::string_view name;
  std::int64_t parameters;
  sn::Bytes total;
  int fitting_devices;
  std::int64_t batch;
};

template <sn::Model M, sn::Setup S>
Summary show(std::string_view name, std::string_view origin) {
  constexpr auto& p = sn::plan<M, S>();
  // Evaluated by the compiler: each is a search over fully planned batch sizes.
  constexpr std::int64_t nano_batch = sn::max_batch<M, S>(sn::device::jetson_nano);
  constexpr std::int64_t rtx_batch = sn::max_batch<M, S>(sn::device::rtx_3060);
  constexpr std::int64_t h100_batch = sn::max_batch<M, S>(sn::device::h100_80gb);
  constexpr std::array<bool, devices.size()> fit = [] {
    std::array<bool, devices.size()> f{};
    for (std::size_t i = 0; i < devices.size(); ++i)
      f[i] = sn::fits<M, S>(devices[i]);
    return f;
  }();

  std::cout << "== " << name << "  (" << origin << ")\n"
            << "  training step: batch " << p.batch() << ", " << sn::name_of(p.setup.optimizer)
            << ", " << sn::name_of(p.setup.loss) << ", FP32\n"
            << "  input " << p.input_shape << " -> output " << p.output_shape << ", "
            << sn::grouped(p.parameter_count) << " parameters, " << p.layer_count()
            << (p.layer_count() == 1 ? " layer, " : " layers, ") << p.buffers.size()
            << " buffers over " << p.step_count() << " steps\n\n";
  sn::print_layers(std::cout, p);
  std::cout << "\n  footprint of one step (each buffer rounded up to 256 B)\n";
  sn::print_footprint(std::cout, p.footprint);

  std::cout << "\n  fits (footprint + runtime overhead <= memory):\n";
  int fitting = 0;
  for (std::size_t i = 0; i < devices.size(); ++i) {
    const bool last_in_row = i % 3 == 2 || i + 1 == devices.size();
    char cell[48];
    std::snprintf(cell, sizeof cell, last_in_row ? "    %-22s %s\n" : "    %-22s %-4s",
                  devices[i].name.text, fit[i] ? "yes" : "NO");
    std::cout << cell;
    fitting += fit[i] ? 1 : 0;
  }
  std::cout << "  largest batch: " << devices[0].name.text << " " << sn::grouped(nano_batch) << ", "
            << sn::device::rtx_3060.name.text << " " << sn::grouped(rtx_batch) << ", "
            << sn::device::h100_80gb.name.text << " " << sn::grouped(h100_batch) << "\n\n";
  return {name, p.parameter_count, p.footprint.total(), fitting, p.batch()};
}

struct Entry {
  std::string_view name;
  Summary (*show)(std::string_view, std::string_view);
  std::string_view origin;
};

constexpr std::array samples = {
    Entry{"SimpleCNN", &show<ss::SimpleCNN, ss::SimpleCNNTraining>, "seed 001, example 1"},
    Entry{"DeepCNN", &show<ss::DeepCNN, ss::DeepCNNTraining>,
          "seed 001, example 2; fc corrected to 128*8*8 inputs"},
    Entry{"LinearRegression", &show<ss::LinearRegression, ss::LinearRegressionTraining>,
          "seed 002: nn.Linear(10, 2), MSE"},
    Entry{"MLP", &show<ss::MLP, ss::MLPTraining>, "seed 003 data; model and Adam chosen here"},
    Entry{"SmallNetwork", &show<ss::SmallNetwork, ss::SmallNetworkTraining>,
          "seed 004, example 1; batch 4, Adam, CrossEntropy chosen here"},
    Entry{"LargerConvNetwork", &show<ss::LargerConvNetwork, ss::LargerConvNetworkTraining>,
          "seed 004, example 2; batch 4, Adam, CrossEntropy chosen here"},
    Entry{"LeNet5", &show<ss::LeNet5, ss::LeNet5Training>,
          "classic: tanh, average pooling; batch 64, SGD with momentum"},
};

}  // namespace

int main(int argc, char** argv) {
  std::array<bool, samples.size()> wanted{};
  for (int a = 1; a < argc; ++a) {
    bool found = false;
    for (std::size_t i = 0; i < samples.size(); ++i) {
      if (lower_case(samples[i].name) == lower_case(argv[a])) {
        wanted[i] = found = true;
      }
    }
    if (!found) {
      std::cerr << "staticnet_samples: no sample named '" << argv[a] << "'; the samples are:";
      for (const Entry& e : samples)
        std::cerr << " " << e.name;
      std::cerr << "\n";
      return 2;
    }
  }
  if (argc == 1)
    wanted.fill(true);

  std::array<Summary, samples.size()> shown{};
  std::size_t count = 0;
  for (std::size_t i = 0; i < samples.size(); ++i)
    if (wanted[i])
      shown[count++] = samples[i].show(samples[i].name, samples[i].origin);

  if (count > 1) {
    std::cout << "== summary\n";
    char line[160];
    std::snprintf(line, sizeof line, "  %-18s %6s %12s  %-26s %s\n", "sample", "batch",
                  "parameters", "one training step", "fits");
    std::cout << line;
    for (std::size_t i = 0; i < count; ++i) {
      const Summary& s = shown[i];
      std::snprintf(line, sizeof line, "  %-18.*s %6lld %12s  %-26s %d of %zu profiles\n",
                    static_cast<int>(s.name.size()), s.name.data(), static_cast<long long>(s.batch),
                    sn::grouped(s.parameters).c_str(), sn::to_string(s.total).c_str(),
                    s.fitting_devices, devices.size());
      std::cout << line;
    }
  }
  return 0;
}
