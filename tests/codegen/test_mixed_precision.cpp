// The working copy and the loss scaler's bodies (staticnet/kernels/mixed_precision.hpp), against
// torch.amp.GradScaler's rules worked by hand: unscaling multiplies by the float reciprocal of
// the scale and reports an Inf or a NaN in the gradients as they were scaled; an update backs off
// by 0.5 on one, and otherwise grows by 2 on the 2000th step in a row without one.
#include <cmath>
#include <cstdint>
#include <limits>

#include <doctest/doctest.h>

#include "staticnet/kernels/mixed_precision.hpp"

namespace k = staticnet::kernels;

TEST_CASE("mixed precision: the working copy rounds each master parameter once") {
  // 1 + 2^-8 is halfway between bf16's 1 and 1 + 2^-7: to even, 1. 1 + 3·2^-9 is nearer 1 + 2^-7.
  const float master[3] = {1.0f + std::ldexp(1.0f, -8), 1.0f + 3 * std::ldexp(1.0f, -9), -2.5f};
  k::BF16 copy[3];
  for (k::index_t i = 0; i < 3; ++i)
    k::round_parameter(i, master, copy);
  CHECK(k::to_float(copy[0]) == 1.0f);
  CHECK(k::to_float(copy[1]) == 1.0f + std::ldexp(1.0f, -7));
  CHECK(k::to_float(copy[2]) == -2.5f);
  k::F16 half[1];
  k::round_parameter(0, master, half);  // f16 keeps 11 bits: 1 + 2^-8 exactly
  CHECK(k::to_float(half[0]) == 1.0f + std::ldexp(1.0f, -8));
}

TEST_CASE("mixed precision: unscaling multiplies by 1/scale and reports an Inf or a NaN") {
  const k::LossScaleState s = k::initial_loss_scale({});
  CHECK(s.scale == 65536.0f);
  CHECK(s.growth_tracker == 0);
  CHECK(s.found_inf == 0.0f);
  CHECK(k::inverse_scale(s) == std::ldexp(1.0f, -16));
  // 1/3 in double, rounded to float: 0x3EAAAAAB.
  CHECK(k::inverse_scale({3.0f, 0, 0.0f}) == 0.333333343f);
  const float inf = std::numeric_limits<float>::infinity();
  float g[5] = {32768.0f, -3.0f, inf, std::numeric_limits<float>::quiet_NaN(), 0.0f};
  bool found[5];
  for (k::index_t i = 0; i < 5; ++i)
    found[i] = k::unscale_gradient(i, g, k::inverse_scale(s));
  CHECK(g[0] == 0.5f);
  CHECK(g[1] == -3.0f * std::ldexp(1.0f, -16));
  CHECK(std::isinf(g[2]));
  CHECK(std::isnan(g[3]));
  CHECK(g[4] == 0.0f);
  CHECK_FALSE(found[0]);
  CHECK_FALSE(found[1]);
  CHECK(found[2]);
  CHECK(found[3]);
  CHECK_FALSE(found[4]);
  // At scale 1 the gradients are left as they are (GradScaler skips the multiply there).
  float same[1] = {0.1f};
  CHECK_FALSE(k::unscale_gradient(0, same, 1.0f));
  CHECK(same[0] == 0.1f);
}

TEST_CASE("mixed precision: the scale backs off on an Inf and grows after 2000 clean steps") {
  const k::LossScaleSettings settings;
  k::LossScaleState s = k::initial_loss_scale(settings);
  s.found_inf = 1.0f;  // the first step overflows: skipped, the scale halved
  k::update_loss_scale(s, settings);
  CHECK(s.scale == 32768.0f);
  CHECK(s.growth_tracker == 0);
  CHECK(s.found_inf == 1.0f);  // kept, for the host to count the skipped step
  s.found_inf = 0.0f;          // (the next step's unscale sets it)
  for (int step = 1; step < 2000; ++step)
    k::update_loss_scale(s, settings);
  CHECK(s.scale == 32768.0f);  // 1999 clean steps: not yet
  CHECK(s.growth_tracker == 1999);
  k::update_loss_scale(s, settings);  // the 2000th
  CHECK(s.scale == 65536.0f);
  CHECK(s.growth_tracker == 0);
  // An overflow in the middle of a run restarts the count.
  for (int step = 0; step < 10; ++step)
    k::update_loss_scale(s, settings);
  s.found_inf = 1.0f;
  k::update_loss_scale(s, settings);
  CHECK(s.scale == 32768.0f);
  CHECK(s.growth_tracker == 0);
  s.found_inf = 0.0f;
  // A scale that would grow past float's range stays where it is, and the count restarts.
  k::LossScaleState top{std::numeric_limits<float>::max(), 1999, 0.0f};
  k::update_loss_scale(top, settings);
  CHECK(top.scale == std::numeric_limits<float>::max());
  CHECK(top.growth_tracker == 0);
}
