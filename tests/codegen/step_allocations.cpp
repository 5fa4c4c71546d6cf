// The generated step uses the plan's arena and nothing else:
//  * NAME_model.h is the plan to the byte: the arena's size, every buffer's offset, size and
//    lifetime, compared with the compile-time plan;
//  * the CPU backend allocates exactly arena_bytes once;
//  * a training step allocates nothing: every malloc, calloc, realloc, aligned allocation and
//    operator new in the process is counted across whole steps (the loader's next batch, the step,
//    reading the losses), after one warm-up step in which OpenBLAS sets up its buffers.
// Its own program, because it replaces the allocation functions for the whole process. Under a
// sanitizer, whose runtime owns malloc, only operator new is counted.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <atomic>
#include <cstddef>
#include <cstdlib>
#include <new>
#include <vector>

#include <staticnet/plan.hpp>
#include <staticnet/runtime/batches/loader.hpp>
#include <staticnet/runtime/formats/synthetic.hpp>
#include <staticnet/runtime/trainer/cpu_backend.hpp>
#include <staticnet/runtime/trainer/initialize.hpp>

#include "fixture_setups.hpp"
#include "fx_lenet5_sgd_momentum_kernels_cpu.h"
#include "fx_lenet5_sgd_momentum_trainer.h"
#include "fx_simple_cnn_accumulate4_adam_kernels_cpu.h"
#include "fx_simple_cnn_accumulate4_adam_trainer.h"
#include "fx_simple_cnn_adam_kernels_cpu.h"
#include "fx_simple_cnn_adam_trainer.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define STATICNET_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define STATICNET_SANITIZED 1
#endif
#endif
#ifndef STATICNET_SANITIZED
#define STATICNET_SANITIZED 0
#endif

namespace {
std::atomic<long> allocations{0};
}  // namespace

#if !STATICNET_SANITIZED && defined(__GLIBC__)
// glibc's own entry points, under the names it exports for exactly this purpose.
extern "C" {
void* __libc_malloc(std::size_t);
void* __libc_calloc(std::size_t, std::size_t);
void* __libc_realloc(void*, std::size_t);
void* __libc_memalign(std::size_t, std::size_t);
void* malloc(std::size_t n) {
  allocations.fetch_add(1, std::memory_order_relaxed);
  return __libc_malloc(n);
}
void* calloc(std::size_t n, std::size_t size) {
  allocations.fetch_add(1, std::memory_order_relaxed);
  return __libc_calloc(n, size);
}
void* realloc(void* p, std::size_t n) {
  allocations.fetch_add(1, std::memory_order_relaxed);
  return __libc_realloc(p, n);
}
void* memalign(std::size_t alignment, std::size_t n) {
  allocations.fetch_add(1, std::memory_order_relaxed);
  return __libc_memalign(alignment, n);
}
void* aligned_alloc(std::size_t alignment, std::size_t n) {
  return memalign(alignment, n);
}
int posix_memalign(void** out, std::size_t alignment, std::size_t n) {
  *out = memalign(alignment, n);
  return *out ? 0 : ENOMEM;
}
}
constexpr bool counts_malloc = true;
#else
constexpr bool counts_malloc = false;
#endif

#if !STATICNET_SANITIZED
[[gnu::noinline]] void* operator new(std::size_t n) {
  allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(n == 0 ? 1 : n))
    return p;
  throw std::bad_alloc();
}
[[gnu::noinline]] void* operator new(std::size_t n, std::align_val_t a) {
  allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::aligned_alloc(static_cast<std::size_t>(a),
                                   (n + static_cast<std::size_t>(a) - 1) /
                                       static_cast<std::size_t>(a) * static_cast<std::size_t>(a)))
    return p;
  throw std::bad_alloc();
}
[[gnu::noinline]] void* operator new[](std::size_t n) {
  return ::operator new(n);
}
[[gnu::noinline]] void* operator new[](std::size_t n, std::align_val_t a) {
  return ::operator new(n, a);
}
[[gnu::noinline]] void operator delete(void* p) noexcept {
  std::free(p);
}
[[gnu::noinline]] void operator delete(void* p, std::size_t) noexcept {
  std::free(p);
}
[[gnu::noinline]] void operator delete(void* p, std::align_val_t) noexcept {
  std::free(p);
}
[[gnu::noinline]] void operator delete(void* p, std::size_t, std::align_val_t) noexcept {
  std::free(p);
}
[[gnu::noinline]] void operator delete[](void* p) noexcept {
  std::free(p);
}
[[gnu::noinline]] void operator delete[](void* p, std::size_t) noexcept {
  std::free(p);
}
[[gnu::noinline]] void operator delete[](void* p, std::align_val_t) noexcept {
  std::free(p);
}
[[gnu::noinline]] void operator delete[](void* p, std::size_t, std::align_val_t) noexcept {
  std::free(p);
}
#endif

namespace {

namespace sn = staticnet;
namespace rt = staticnet::runtime;

// NAME_model.h against the plan, buffer by buffer.
template <std::size_t L, class Header>
void check_header_is_plan(const sn::Plan<L>& plan, const Header& buffers, std::int64_t arena) {
  CHECK(arena == plan.footprint.total().count);
  REQUIRE(std::size(buffers) == plan.buffers.size());
  for (std::size_t i = 0; i < plan.buffers.size(); ++i) {
    CAPTURE(i);
    CHECK(buffers[i].offset == plan.buffers[i].offset);
    CHECK(buffers[i].bytes == plan.buffers[i].size);
    CHECK(buffers[i].first_step == plan.buffers[i].first_step);
    CHECK(buffers[i].last_step == plan.buffers[i].last_step);
    CHECK(static_cast<int>(buffers[i].dtype) == static_cast<int>(plan.buffers[i].dtype));
    CHECK(buffers[i].elements == plan.buffers[i].elements());
    CHECK(static_cast<int>(buffers[i].role) == static_cast<int>(plan.buffers[i].role));
    CHECK(buffers[i].layer == plan.buffers[i].layer);
    CHECK(buffers[i].offset + sn::align_up(buffers[i].bytes) <= arena);
  }
}

void check_steps_allocate_nothing(const rt::ModelInfo& model, rt::CpuSteps steps) {
  CAPTURE(model.name);
  rt::SyntheticOptions data;
  data.sample_shape = model.sample_shape;
  data.size = 4 * model.batch;
  data.num_classes = model.classes;
  const auto dataset = rt::make_synthetic(data);
  rt::LoaderConfig config;
  config.batch_size = model.batch;
  config.sample_shape = model.sample_shape;
  config.workers = 2;

  const long before_backend = allocations.load();
  rt::CpuBackend backend(model, steps, 2);
  const long backend_allocations = allocations.load() - before_backend;
  // The arena, the pool's worker thread and its bookkeeping: a handful, made once (counted only
  // where this program owns the allocation functions).
  if (!STATICNET_SANITIZED)
    CHECK(backend_allocations >= 1);
  CHECK(backend.memory().arena == model.arena.bytes);

  std::vector<float> parameters(static_cast<std::size_t>(model.parameter_count));
  rt::initialize_parameters(model, 1, parameters);
  backend.write_state(rt::StateBuffer::parameters, parameters);
  rt::BatchLoader loader(*dataset, config);
  staticnet::kernels::OptimizerSettings settings;
  settings.learning_rate = 1e-3;
  auto one_step = [&](std::int64_t t) {
    loader.next(backend.batch_inputs(), backend.batch_labels());
    backend.train_step(staticnet::kernels::optimizer_constants(model.optimizer, settings, t));
    double sum = 0;
    for (float l : backend.losses())
      sum += l;
    return sum;
  };
  one_step(1);  // warm-up: OpenBLAS's buffers
  const long before = allocations.load();
  double total = 0;
  for (int t = 2; t <= 6; ++t)
    total += one_step(t);
  const long during = allocations.load() - before;
  CHECK(total > 0);
  CHECK_MESSAGE(during == 0,
                during << " allocations in 5 steps (malloc counted: " << counts_malloc << ")");
}

}  // namespace

TEST_CASE("arena: SimpleCNN's generated header is its plan to the byte") {
  check_header_is_plan(sn::plan<sn::samples::SimpleCNN, fixture_setups::SimpleCNNAdam>(),
                       fx_simple_cnn_adam::buffers, fx_simple_cnn_adam::arena_bytes);
  CHECK(fx_simple_cnn_adam::arena_bytes == 21'747'200);  // samples/simple_cnn.hpp, by hand
  // The inputs region follows the weights, gradients and Adam's two moments, 165,888 bytes each
  // (41,418 floats rounded up to 256), and opens with the input.
  CHECK(fx_simple_cnn_adam::footprint::inputs_at == 4 * 165'888);
  CHECK(fx_simple_cnn_adam::input.offset == fx_simple_cnn_adam::footprint::inputs_at);
}

TEST_CASE("arena: LeNet-5's generated header is its plan to the byte") {
  check_header_is_plan(sn::plan<sn::samples::LeNet5, fixture_setups::LeNet5SgdMomentum>(),
                       fx_lenet5_sgd_momentum::buffers, fx_lenet5_sgd_momentum::arena_bytes);
  CHECK(fx_lenet5_sgd_momentum::arena_bytes == 3'730'688);  // samples/lenet5.hpp, by hand
}

// Accumulate<4>: the same model as four micro-batches of 32. The header is still the plan, and the
// arena smaller by what the layers' tensors lose: the activation region holds 32 samples' worth
// (test_accumulate.cpp in tests/core derives it).
TEST_CASE("arena: SimpleCNN under Accumulate<4>: its generated header is its plan to the byte") {
  namespace generated = fx_simple_cnn_accumulate4_adam;
  check_header_is_plan(sn::plan<sn::samples::SimpleCNN, fixture_setups::SimpleCNNAccumulate4Adam>(),
                       generated::buffers, generated::arena_bytes);
  static_assert(generated::micro_batches == 4 && generated::micro_batch == 32);
  CHECK(generated::footprint::inputs == fx_simple_cnn_adam::footprint::inputs);
  CHECK(generated::arena_bytes < fx_simple_cnn_adam::arena_bytes / 2);
}

TEST_CASE("allocations: SimpleCNN's training steps under Accumulate<4> allocate nothing") {
  check_steps_allocate_nothing(fx_simple_cnn_accumulate4_adam::model_info(),
                               {&fx_simple_cnn_accumulate4_adam::cpu::train_step,
                                &fx_simple_cnn_accumulate4_adam::cpu::evaluate});
}

TEST_CASE("allocations: SimpleCNN's training steps allocate nothing") {
  check_steps_allocate_nothing(
      fx_simple_cnn_adam::model_info(),
      {&fx_simple_cnn_adam::cpu::train_step, &fx_simple_cnn_adam::cpu::evaluate});
}

TEST_CASE("allocations: LeNet-5's training steps allocate nothing") {
  check_steps_allocate_nothing(
      fx_lenet5_sgd_momentum::model_info(),
      {&fx_lenet5_sgd_momentum::cpu::train_step, &fx_lenet5_sgd_momentum::cpu::evaluate});
}
