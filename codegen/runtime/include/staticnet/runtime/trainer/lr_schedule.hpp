#pragma once
// The learning rate epoch by epoch (the trainers' --lr-schedule). Beside a constant rate, the two
// schedules the MLPerf Tiny reference recipes use (Keras' LearningRateScheduler, called once per
// epoch), and cosine annealing:
//
//   exponential:G    the rate is multiplied by G, 0 < G <= 1, after every epoch (ResNet-8:
//                    --lr 0.001 --lr-schedule exponential:0.99). Multiplied in double one epoch
//                    at a time, as PyTorch's ExponentialLR stepped once per epoch does, so the
//                    rates are PyTorch's to the bit. (Keras' lr·G^epoch by pow() is not: from
//                    epoch 3 on most epochs differ, by up to 14 ulp at epoch 500.)
//   steps:E=LR,...   LR once E epochs are done, E increasing from 1: E is PyTorch's milestone
//                    and Keras' `epoch < E` (DS-CNN: --lr 0.0005
//                    --lr-schedule steps:12=1e-4,24=2e-5,36=1e-5).
//   cosine:T[,MIN]   from the rate down to MIN (default 0) along a half cosine over T epochs,
//                    then up again: PyTorch's CosineAnnealingLR(T_max=T, eta_min=MIN) stepped
//                    once per epoch, with its recursion operation for operation, so the rates
//                    are PyTorch's to the bit too.
//
// The rate depends on the epoch alone, so a run resumed in mid-epoch goes on with the same rates.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace staticnet::runtime {

class LrSchedule {
 public:
  struct Step {
    std::int64_t after_epochs = 0;  // the rate applies from this 0-based epoch on
    double learning_rate = 0;
    bool operator==(const Step&) const = default;
  };

  LrSchedule() = default;  // constant
  // Both throw std::invalid_argument, saying why, for a schedule outside the limits above.
  static LrSchedule exponential(double gamma);
  static LrSchedule steps(std::vector<Step> steps);
  static LrSchedule cosine(std::int64_t period, double floor = 0);
  // Reads "constant", "exponential:0.99", "steps:12=0.0001,24=2e-05" or "cosine:50,1e-05", as
  // text() writes them.
  // Throws std::invalid_argument with a message that starts with `text` and says what is wrong
  // (quoting the item, where one of a steps list does not read).
  static LrSchedule parse(std::string_view text);

  // The rate of 0-based `epoch` when the first epoch's is `initial`.
  double at(double initial, std::int64_t epoch) const;
  bool is_constant() const { return kind_ == Kind::constant; }
  // The schedule as parse() reads it.
  std::string text() const;
  // In words, for the trainer's report: "x0.99 after every epoch", "0.0001 after epoch 12,
  // 2e-05 after epoch 24", "cosine to 0 over 50 epochs (rising again after)"; "constant".
  std::string description() const;

  bool operator==(const LrSchedule&) const = default;

 private:
  enum class Kind { constant, exponential, steps, cosine };
  Kind kind_ = Kind::constant;
  double gamma_ = 1;
  std::vector<Step> steps_;
  std::int64_t period_ = 0;  // cosine: T
  double floor_ = 0;         // cosine: MIN
};

}  // namespace staticnet::runtime
