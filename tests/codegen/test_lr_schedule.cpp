// The learning-rate schedules (--lr-schedule): their rates against PyTorch's, what they read and
// write, and what they refuse.
#include <doctest/doctest.h>

#include <cstdint>
#include <stdexcept>
#include <string>

#include <staticnet/runtime/trainer/lr_schedule.hpp>

namespace {

namespace rt = staticnet::runtime;

std::string parse_error(const std::string& text) {
  try {
    rt::LrSchedule::parse(text);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("lr schedule: a constant rate is the initial one in every epoch") {
  const rt::LrSchedule constant;
  CHECK(constant.is_constant());
  CHECK(constant.at(0.01, 0) == 0.01);
  CHECK(constant.at(0.01, 499) == 0.01);
  CHECK(constant.text() == "constant");
  CHECK(rt::LrSchedule::parse("constant") == constant);
}

TEST_CASE("lr schedule: exponential rates are PyTorch's ExponentialLR's, stepped once an epoch") {
  // The rates of torch.optim.lr_scheduler.ExponentialLR(Adam(lr=0.001), gamma=0.99) before
  // each epoch's steps (PyTorch 2.15, param_groups[0]['lr'] printed with repr). Keras' closed
  // form 0.001 * 0.99**epoch differs at epoch 3: 0.0009702990000000001.
  const rt::LrSchedule s = rt::LrSchedule::parse("exponential:0.99");
  CHECK_FALSE(s.is_constant());
  CHECK(s.at(0.001, 0) == 0.001);
  CHECK(s.at(0.001, 1) == 0.00099);
  CHECK(s.at(0.001, 2) == 0.0009801);
  CHECK(s.at(0.001, 3) == 0.000970299);
  CHECK(s.at(0.001, 4) == 0.0009605960099999999);
  CHECK(s.at(0.001, 5) == 0.0009509900498999999);
  // Halving: exact in binary.
  CHECK(rt::LrSchedule::exponential(0.5).at(0.1, 3) == 0.0125);
  CHECK(s.text() == "exponential:0.99");
  CHECK(s.description() == "x0.99 after every epoch");
}

TEST_CASE("lr schedule: steps change the rate once their epochs are done") {
  // The MLPerf Tiny DS-CNN recipe (Keras: 0.0005 while epoch < 12, 0.0001 while < 24, ...).
  const rt::LrSchedule s = rt::LrSchedule::parse("steps:12=1e-4,24=2e-5,36=1e-5");
  CHECK(s.at(0.0005, 0) == 0.0005);
  CHECK(s.at(0.0005, 11) == 0.0005);
  CHECK(s.at(0.0005, 12) == 0.0001);
  CHECK(s.at(0.0005, 23) == 0.0001);
  CHECK(s.at(0.0005, 24) == 0.00002);
  CHECK(s.at(0.0005, 35) == 0.00002);
  CHECK(s.at(0.0005, 36) == 0.00001);
  CHECK(s.at(0.0005, 1000) == 0.00001);
  CHECK(s.text() == "steps:12=0.0001,24=2e-05,36=1e-05");
  CHECK(s.description() == "0.0001 after epoch 12, 2e-05 after epoch 24, 1e-05 after epoch 36");
}

TEST_CASE("lr schedule: cosine rates are PyTorch's CosineAnnealingLR's, stepped once an epoch") {
  // torch.optim.lr_scheduler.CosineAnnealingLR(SGD(lr=0.1), T_max=5, eta_min=0.001), the rate
  // before each epoch's steps (PyTorch 2.15, param_groups[0]['lr'] printed with repr): down over
  // 5 epochs, back up over the next 5, and down again; the recursion's rounding shows (epoch 10
  // is 0.10000000000000005, not 0.1).
  const rt::LrSchedule s = rt::LrSchedule::parse("cosine:5,0.001");
  const double torch[] = {0.1,
                          0.0905463412215599,
                          0.06579634122155989,
                          0.035203658778440096,
                          0.010453658778440105,
                          0.001,
                          0.010453658778440102,
                          0.03520365877844012,
                          0.06579634122155993,
                          0.09054634122155995,
                          0.10000000000000005,
                          0.09054634122155998,
                          0.06579634122155995,
                          0.03520365877844014};
  for (std::int64_t epoch = 0; epoch < 14; ++epoch) {
    CAPTURE(epoch);
    CHECK(s.at(0.1, epoch) == torch[epoch]);
  }
  // CosineAnnealingLR(SGD(lr=0.001), T_max=3): to 0 exactly, then up.
  const rt::LrSchedule to_zero = rt::LrSchedule::cosine(3);
  const double torch_to_zero[] = {0.001,
                                  0.00075,
                                  0.0002500000000000001,
                                  0.0,
                                  0.00024999999999999995,
                                  0.0007500000000000006,
                                  0.0010000000000000007,
                                  0.0007500000000000008};
  for (std::int64_t epoch = 0; epoch < 8; ++epoch) {
    CAPTURE(epoch);
    CHECK(to_zero.at(0.001, epoch) == torch_to_zero[epoch]);
  }
  // T_max=50 from 0.05: epochs 1, 25, 49 and 50.
  const rt::LrSchedule long_run = rt::LrSchedule::parse("cosine:50");
  CHECK(long_run.at(0.05, 1) == 0.04995066821070679);
  CHECK(long_run.at(0.05, 25) == 0.024999999999999998);
  CHECK(long_run.at(0.05, 49) == 4.933178929321102e-05);
  CHECK(long_run.at(0.05, 50) == 0.0);
  CHECK(s.text() == "cosine:5,0.001");
  CHECK(long_run.text() == "cosine:50");
  CHECK(s.description() == "cosine to 0.001 over 5 epochs (rising again after)");
}

TEST_CASE("lr schedule: text() reads back as the same schedule, to the bit") {
  for (const char* text :
       {"constant", "exponential:0.99", "exponential:0.30000000000000004", "steps:1=0.1",
        "steps:20=0.0005,30=0.00025", "steps:3=1e-300,4=1.7976931348623157e+308", "cosine:1",
        "cosine:200,1e-06"}) {
    CAPTURE(text);
    const rt::LrSchedule s = rt::LrSchedule::parse(text);
    CHECK(s.text() == text);
    CHECK(rt::LrSchedule::parse(s.text()) == s);
  }
  // Other spellings of the same numbers are written the shortest way.
  CHECK(rt::LrSchedule::parse("steps:12=0.00010").text() == "steps:12=0.0001");
}

TEST_CASE("lr schedule: a schedule that does not read is refused, quoting what is wrong") {
  CHECK(parse_error("linear") ==
        "expected constant, exponential:GAMMA, steps:EPOCHS=LR,... (e.g. steps:12=1e-4,24=2e-5) "
        "or cosine:EPOCHS[,MIN], found 'linear'");
  CHECK(parse_error("") != "(no error)");
  CHECK(parse_error("exponential") ==
        "exponential: expected exponential:GAMMA with GAMMA a number in (0, 1], e.g. "
        "exponential:0.99");
  CHECK(parse_error("exponential:0.9x") ==
        "exponential:0.9x: expected exponential:GAMMA with GAMMA a number in (0, 1], e.g. "
        "exponential:0.99");
  CHECK(parse_error("exponential:0") == "exponential:0: the factor must be in (0, 1], found 0");
  CHECK(parse_error("exponential:-0.50") ==
        "exponential:-0.50: the factor must be in (0, 1], found -0.5");
  CHECK(parse_error("exponential:9.9") ==
        "exponential:9.9: the factor must be in (0, 1], found 9.9");
  CHECK(parse_error("exponential:inf") ==
        "exponential:inf: the factor must be in (0, 1], found inf");
  CHECK(parse_error("exponential:1") == "(no error)");
  CHECK(parse_error("steps:") ==
        "steps:: expected EPOCHS=LR (a whole number of epochs, then the rate), found ''");
  CHECK(parse_error("steps:12=abc") ==
        "steps:12=abc: expected EPOCHS=LR (a whole number of epochs, then the rate), found "
        "'12=abc'");
  CHECK(parse_error("steps:12=1e-4,") ==
        "steps:12=1e-4,: expected EPOCHS=LR (a whole number of epochs, then the rate), found ''");
  CHECK(parse_error("steps:1.5=0.1") ==
        "steps:1.5=0.1: expected EPOCHS=LR (a whole number of epochs, then the rate), found "
        "'1.5=0.1'");
  CHECK(parse_error("steps: 12=0.1") ==
        "steps: 12=0.1: expected EPOCHS=LR (a whole number of epochs, then the rate), found "
        "' 12=0.1'");
  CHECK(parse_error("steps:12=1e400") ==
        "steps:12=1e400: expected EPOCHS=LR (a whole number of epochs, then the rate), found "
        "'12=1e400'");
  CHECK(parse_error("steps:24=1e-4,12=2e-5") ==
        "steps:24=1e-4,12=2e-5: the epochs must increase, found 12 after 24");
  CHECK(parse_error("steps:12=1e-4,12=2e-5") ==
        "steps:12=1e-4,12=2e-5: the epochs must increase, found 12 after 12");
  CHECK(parse_error("steps:0=0.1") == "steps:0=0.1: the first EPOCHS must be at least 1, found 0");
  CHECK(parse_error("steps:12=0") ==
        "steps:12=0: the rate after 12 epochs must be positive, found 0");
  CHECK(parse_error("steps:12=nan") ==
        "steps:12=nan: the rate after 12 epochs must be positive, found nan");
  CHECK(parse_error("cosine") ==
        "cosine: expected cosine:EPOCHS or cosine:EPOCHS,MIN (a whole number of epochs, then "
        "the lowest rate), e.g. cosine:50");
  CHECK(parse_error("cosine:5,") ==
        "cosine:5,: expected cosine:EPOCHS or cosine:EPOCHS,MIN (a whole number of epochs, then "
        "the lowest rate), e.g. cosine:50");
  CHECK(parse_error("cosine:0") == "cosine:0: the epochs must be from 1 to 1099511627776, found 0");
  CHECK(parse_error("cosine:9223372036854775807") ==
        "cosine:9223372036854775807: the epochs must be from 1 to 1099511627776, found "
        "9223372036854775807");
  CHECK(parse_error("cosine:5,-1e-3") ==
        "cosine:5,-1e-3: the lowest rate must be a number >= 0, found -0.001");
  // The factories say why without the text.
  CHECK_THROWS_WITH_AS(rt::LrSchedule::exponential(1.5), "the factor must be in (0, 1], found 1.5",
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(rt::LrSchedule::steps({}), "expected at least one EPOCHS=LR",
                       std::invalid_argument);
}
