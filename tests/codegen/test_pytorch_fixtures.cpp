// The generated CPU step against PyTorch (tests/reference/make_fixtures.py): the same initial
// weights and batch, three optimizer steps with each optimizer; the losses of every step, the
// gradients of the first and the weights after the third must agree.
//
// Tolerances (the issue's): f32 losses within 1e-5 relative; gradients and weights within 1e-4,
// where a tensor's error is max |ours − PyTorch| / max |PyTorch| over its elements (elementwise
// relative error is meaningless for entries near zero).
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include <staticnet/runtime/checkpoints/safetensors_reader.hpp>
#include <staticnet/runtime/trainer/cpu_backend.hpp>

#include "fixture_batch.hpp"
#include "fx_lenet5_adam_kernels_cpu.h"
#include "fx_lenet5_adam_trainer.h"
#include "fx_lenet5_adamw_kernels_cpu.h"
#include "fx_lenet5_adamw_trainer.h"
#include "fx_lenet5_sgd_kernels_cpu.h"
#include "fx_lenet5_sgd_momentum_kernels_cpu.h"
#include "fx_lenet5_sgd_momentum_trainer.h"
#include "fx_lenet5_sgd_trainer.h"
#include "fx_linear_regression_adam_kernels_cpu.h"
#include "fx_linear_regression_adam_trainer.h"
#include "fx_linear_regression_adamw_kernels_cpu.h"
#include "fx_linear_regression_adamw_trainer.h"
#include "fx_linear_regression_sgd_kernels_cpu.h"
#include "fx_linear_regression_sgd_momentum_kernels_cpu.h"
#include "fx_linear_regression_sgd_momentum_trainer.h"
#include "fx_linear_regression_sgd_trainer.h"
#include "fx_mlp_adam_kernels_cpu.h"
#include "fx_mlp_adam_trainer.h"
#include "fx_mlp_adamw_kernels_cpu.h"
#include "fx_mlp_adamw_trainer.h"
#include "fx_mlp_sgd_kernels_cpu.h"
#include "fx_mlp_sgd_momentum_kernels_cpu.h"
#include "fx_mlp_sgd_momentum_trainer.h"
#include "fx_mlp_sgd_trainer.h"
#include "fx_simple_cnn_adam_kernels_cpu.h"
#include "fx_simple_cnn_adam_trainer.h"
#include "fx_simple_cnn_adamw_kernels_cpu.h"
#include "fx_simple_cnn_adamw_trainer.h"
#include "fx_simple_cnn_sgd_kernels_cpu.h"
#include "fx_simple_cnn_sgd_momentum_kernels_cpu.h"
#include "fx_simple_cnn_sgd_momentum_trainer.h"
#include "fx_simple_cnn_sgd_trainer.h"

namespace {

namespace rt = staticnet::runtime;
namespace k = staticnet::kernels;

rt::SafetensorsReader fixture(const std::string& model) {
  return rt::SafetensorsReader::open(std::filesystem::path(STATICNET_FIXTURE_DIR) /
                                     (model + ".safetensors"));
}

std::vector<double> values(const rt::SafetensorsReader& file, const std::string& name) {
  const rt::SafetensorsTensorInfo* t = file.find(name);
  REQUIRE_MESSAGE(t != nullptr, "fixture tensor " << name
                                                  << " is missing: regenerate with "
                                                     "tests/reference/make_fixtures.py");
  const auto bytes = file.data(*t);
  std::vector<double> out(t->element_count());
  if (t->dtype == rt::Dtype::f64) {
    std::memcpy(out.data(), bytes.data(), bytes.size());
  } else {
    std::vector<float> f(t->element_count());
    std::memcpy(f.data(), bytes.data(), bytes.size());
    out.assign(f.begin(), f.end());
  }
  return out;
}

double setting(const rt::SafetensorsReader& file, const std::string& key) {
  const auto it = file.metadata().find(key);
  REQUIRE_MESSAGE(it != file.metadata().end(), "fixture metadata " << key << " is missing");
  return std::stod(it->second);
}

// max |ours − theirs| / max |theirs|
double tensor_error(const float* ours, const std::vector<double>& theirs) {
  double diff = 0, scale = 0;
  for (std::size_t i = 0; i < theirs.size(); ++i) {
    diff = std::max(diff, std::abs(ours[i] - theirs[i]));
    scale = std::max(scale, std::abs(theirs[i]));
  }
  return diff / scale;
}

void check_against_pytorch(const std::string& model_name, const std::string& optimizer,
                           const rt::ModelInfo& model, rt::CpuSteps steps) {
  CAPTURE(model_name);
  CAPTURE(optimizer);
  const rt::SafetensorsReader file = fixture(model_name);
  REQUIRE(file.metadata().at("fixture_version") == "1");
  rt::CpuBackend backend(model, steps, 2);

  std::vector<float> parameters(static_cast<std::size_t>(model.parameter_count));
  for (const rt::ParameterTensor& t : model.parameters) {
    const std::vector<double> init = values(file, "init." + t.name);
    REQUIRE(static_cast<std::int64_t>(init.size()) == t.elements());
    for (std::size_t i = 0; i < init.size(); ++i)
      parameters[static_cast<std::size_t>(t.offset) + i] = static_cast<float>(init[i]);
  }
  backend.write_state(rt::StateBuffer::parameters, parameters);
  fixture_batch::inputs(backend.batch_inputs());
  if (model.classifies())
    fixture_batch::labels(backend.batch_labels(), model.classes);
  else
    fixture_batch::targets(backend.batch_targets());

  k::OptimizerSettings settings;
  settings.learning_rate = setting(file, optimizer + ".lr");
  settings.weight_decay = setting(file, optimizer + ".weight_decay");
  if (optimizer == "sgd_momentum")
    settings.momentum = setting(file, optimizer + ".momentum");
  if (optimizer == "adam" || optimizer == "adamw") {
    settings.beta1 = setting(file, optimizer + ".beta1");
    settings.beta2 = setting(file, optimizer + ".beta2");
    settings.epsilon = setting(file, optimizer + ".eps");
  }

  const std::vector<double> losses = values(file, optimizer + ".loss");
  const float* gradients =
      reinterpret_cast<const float*>(backend.arena() + model.arena.gradients_at);
  for (int step = 1; step <= 3; ++step) {
    CAPTURE(step);
    backend.train_step(k::optimizer_constants(model.optimizer, settings, step));
    double loss = 0;
    for (float l : backend.losses())
      loss += l;
    loss /= static_cast<double>(model.batch);
    const double expected = losses[static_cast<std::size_t>(step - 1)];
    CHECK(std::abs(loss - expected) <= 1e-5 * std::abs(expected));
    if (step == 1) {
      for (const rt::ParameterTensor& t : model.parameters) {
        CAPTURE(t.name);
        CHECK(tensor_error(gradients + t.offset, values(file, "grad1." + t.name)) <= 1e-4);
      }
    }
  }
  backend.read_state(rt::StateBuffer::parameters, parameters);
  for (const rt::ParameterTensor& t : model.parameters) {
    CAPTURE(t.name);
    CHECK(tensor_error(parameters.data() + t.offset,
                       values(file, optimizer + ".final." + t.name)) <= 1e-4);
  }
}

#define STATICNET_FIXTURE_CASE(model, optimizer)                                                 \
  TEST_CASE("pytorch: " #model " with " #optimizer ", three steps") {                            \
    check_against_pytorch(                                                                       \
        #model, #optimizer, fx_##model##_##optimizer::model_info(),                              \
        {&fx_##model##_##optimizer::cpu::train_step, &fx_##model##_##optimizer::cpu::evaluate}); \
  }

}  // namespace

STATICNET_FIXTURE_CASE(simple_cnn, sgd)
STATICNET_FIXTURE_CASE(simple_cnn, sgd_momentum)
STATICNET_FIXTURE_CASE(simple_cnn, adam)
STATICNET_FIXTURE_CASE(simple_cnn, adamw)
STATICNET_FIXTURE_CASE(lenet5, sgd)
STATICNET_FIXTURE_CASE(lenet5, sgd_momentum)
STATICNET_FIXTURE_CASE(lenet5, adam)
STATICNET_FIXTURE_CASE(lenet5, adamw)
STATICNET_FIXTURE_CASE(mlp, sgd)
STATICNET_FIXTURE_CASE(mlp, sgd_momentum)
STATICNET_FIXTURE_CASE(mlp, adam)
STATICNET_FIXTURE_CASE(mlp, adamw)
STATICNET_FIXTURE_CASE(linear_regression, sgd)
STATICNET_FIXTURE_CASE(linear_regression, sgd_momentum)
STATICNET_FIXTURE_CASE(linear_regression, adam)
STATICNET_FIXTURE_CASE(linear_regression, adamw)
