#include "staticnet/runtime/trainer/lr_schedule.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <optional>
#include <stdexcept>
#include <utility>

#include "../number_text.hpp"

namespace staticnet::runtime {
namespace {

constexpr std::string_view forms =
    "constant, exponential:GAMMA, steps:EPOCHS=LR,... (e.g. steps:12=1e-4,24=2e-5) or "
    "cosine:EPOCHS[,MIN]";

bool positive_finite(double x) {
  return std::isfinite(x) && x > 0;
}

}  // namespace

LrSchedule LrSchedule::exponential(double gamma) {
  // Above 1 the rate grows without end: a typo for a decay (9.9 for 0.99) more likely than meant.
  if (!(gamma > 0 && gamma <= 1))
    throw std::invalid_argument(
        fmt::format("the factor must be in (0, 1], found {}", round_trip_text(gamma)));
  LrSchedule s;
  s.kind_ = Kind::exponential;
  s.gamma_ = gamma;
  return s;
}

LrSchedule LrSchedule::steps(std::vector<Step> steps) {
  if (steps.empty())
    throw std::invalid_argument("expected at least one EPOCHS=LR");
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const Step& step = steps[i];
    if (i == 0 && step.after_epochs < 1)
      throw std::invalid_argument(
          fmt::format("the first EPOCHS must be at least 1, found {}", step.after_epochs));
    if (i > 0 && step.after_epochs <= steps[i - 1].after_epochs)
      throw std::invalid_argument(fmt::format("the epochs must increase, found {} after {}",
                                              step.after_epochs, steps[i - 1].after_epochs));
    if (!positive_finite(step.learning_rate))
      throw std::invalid_argument(fmt::format("the rate after {} epochs must be positive, found {}",
                                              step.after_epochs,
                                              round_trip_text(step.learning_rate)));
  }
  LrSchedule s;
  s.kind_ = Kind::steps;
  s.steps_ = std::move(steps);
  return s;
}

LrSchedule LrSchedule::cosine(std::int64_t period, double floor) {
  // The recursion takes the rate modulo 2·T epochs: keep that product far from overflowing.
  constexpr std::int64_t most = std::int64_t{1} << 40;
  if (period < 1 || period > most)
    throw std::invalid_argument(
        fmt::format("the epochs must be from 1 to {}, found {}", most, period));
  if (!(std::isfinite(floor) && floor >= 0))
    throw std::invalid_argument(
        fmt::format("the lowest rate must be a number >= 0, found {}", round_trip_text(floor)));
  LrSchedule s;
  s.kind_ = Kind::cosine;
  s.period_ = period;
  s.floor_ = floor;
  return s;
}

LrSchedule LrSchedule::parse(std::string_view text) {
  if (text == "constant")
    return {};
  const std::size_t colon = text.find(':');
  const std::string_view kind = text.substr(0, colon);
  const std::string_view rest = colon == std::string_view::npos ? "" : text.substr(colon + 1);
  // The factories' reasons, after the text they refuse.
  const auto refused = [&](const std::invalid_argument& e) {
    return std::invalid_argument(fmt::format("{}: {}", text, e.what()));
  };
  if (kind == "exponential") {
    const auto gamma = whole_number<double>(rest);
    if (!gamma)
      throw std::invalid_argument(fmt::format(
          "{}: expected exponential:GAMMA with GAMMA a number in (0, 1], e.g. exponential:0.99",
          text));
    try {
      return exponential(*gamma);
    } catch (const std::invalid_argument& e) {
      throw refused(e);
    }
  }
  if (kind == "steps") {
    std::vector<Step> steps;
    for (std::size_t start = 0; start <= rest.size();) {
      const std::size_t comma = std::min(rest.find(',', start), rest.size());
      const std::string_view item = rest.substr(start, comma - start);
      const std::size_t equals = item.find('=');
      const auto epochs = whole_number<std::int64_t>(item.substr(0, equals));
      const auto rate = equals == std::string_view::npos
                            ? std::nullopt
                            : whole_number<double>(item.substr(equals + 1));
      if (!epochs || !rate)
        throw std::invalid_argument(fmt::format(
            "{}: expected EPOCHS=LR (a whole number of epochs, then the rate), found '{}'", text,
            item));
      steps.push_back({*epochs, *rate});
      start = comma + 1;
    }
    try {
      return LrSchedule::steps(std::move(steps));
    } catch (const std::invalid_argument& e) {
      throw refused(e);
    }
  }
  if (kind == "cosine") {
    const std::size_t comma = rest.find(',');
    const auto period = whole_number<std::int64_t>(rest.substr(0, comma));
    const auto floor =
        comma == std::string_view::npos ? 0.0 : whole_number<double>(rest.substr(comma + 1));
    if (!period || !floor)
      throw std::invalid_argument(fmt::format(
          "{}: expected cosine:EPOCHS or cosine:EPOCHS,MIN (a whole number of epochs, then the "
          "lowest rate), e.g. cosine:50",
          text));
    try {
      return cosine(*period, *floor);
    } catch (const std::invalid_argument& e) {
      throw refused(e);
    }
  }
  throw std::invalid_argument(fmt::format("expected {}, found '{}'", forms, text));
}

namespace {

// Python's a % b for b > 0: never negative.
std::int64_t python_modulo(std::int64_t a, std::int64_t b) {
  return (a % b + b) % b;
}

}  // namespace

double LrSchedule::at(double initial, std::int64_t epoch) const {
  double rate = initial;
  switch (kind_) {
    case Kind::constant:
      break;
    case Kind::exponential:
      for (std::int64_t e = 0; e < epoch; ++e)
        rate *= gamma_;
      break;
    case Kind::steps:
      for (const Step& step : steps_)
        if (epoch >= step.after_epochs)
          rate = step.learning_rate;
      break;
    case Kind::cosine: {
      // PyTorch's CosineAnnealingLR.get_lr(), one step per epoch, operation for operation (this
      // file is compiled without contracting a·b + c into a fused multiply-add, as Python does
      // not): each rate from the one before, and where cos(π·(e − 1)/T) = −1 would divide by 0,
      // the step that starts the curve's rise again.
      const double pi = std::numbers::pi, period = static_cast<double>(period_);
      for (std::int64_t e = 1; e <= epoch; ++e) {
        const auto x = static_cast<double>(e);
        if (python_modulo(e - 1 - period_, 2 * period_) == 0)
          rate = rate + (initial - floor_) * (1 - std::cos(pi / period)) / 2;
        else
          rate = (1 + std::cos(pi * x / period)) / (1 + std::cos(pi * (x - 1) / period)) *
                     (rate - floor_) +
                 floor_;
      }
      break;
    }
  }
  return rate;
}

std::string LrSchedule::text() const {
  switch (kind_) {
    case Kind::constant:
      return "constant";
    case Kind::exponential:
      return "exponential:" + round_trip_text(gamma_);
    case Kind::steps: {
      std::string out = "steps:";
      for (const Step& step : steps_)
        out += fmt::format("{}{}={}", &step == steps_.data() ? "" : ",", step.after_epochs,
                           round_trip_text(step.learning_rate));
      return out;
    }
    case Kind::cosine:
      return fmt::format("cosine:{}", period_) +
             (floor_ == 0 ? std::string() : "," + round_trip_text(floor_));
  }
  return "constant";
}

std::string LrSchedule::description() const {
  switch (kind_) {
    case Kind::constant:
      return "constant";
    case Kind::exponential:
      return "x" + round_trip_text(gamma_) + " after every epoch";
    case Kind::steps: {
      std::string out;
      for (const Step& step : steps_)
        out += fmt::format("{}{} after epoch {}", out.empty() ? "" : ", ",
                           round_trip_text(step.learning_rate), step.after_epochs);
      return out;
    }
    case Kind::cosine:
      return fmt::format("cosine to {} over {} epochs (rising again after)",
                         round_trip_text(floor_), period_);
  }
  return "constant";
}

}  // namespace staticnet::runtime
