// The learning-rate schedules (--lr-schedule): their rates against PyTorch's, what they read and
// write, and what they refuse.
#include <doctest/doctest.h>

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

TEST_CASE("lr schedule: text() reads back as the same schedule, to the bit") {
  for (const char* text :
       {"constant", "exponential:0.99", "exponential:0.30000000000000004", "steps:1=0.1",
        "steps:20=0.0005,30=0.00025", "steps:3=1e-300,4=1.7976931348623157e+308"}) {
    CAPTURE(text);
    const rt::LrSchedule s = rt::LrSchedule::parse(text);
    CHECK(s.text() == text);
    CHECK(rt::LrSchedule::parse(s.text()) == s);
  }
  // Other spellings of the same numbers are written the shortest way.
  CHECK(rt::LrSchedule::parse("steps:12=0.00010").text() == "steps:12=0.0001");
}

TEST_CASE("lr schedule: a schedule that does not read is refused, quoting what is wrong") {
  CHECK(parse_error("cosine") ==
        "expected constant, exponential:GAMMA or steps:EPOCHS=LR,... (e.g. "
        "steps:12=1e-4,24=2e-5), found 'cosine'");
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
  // The factories say why without the text.
  CHECK_THROWS_WITH_AS(rt::LrSchedule::exponential(1.5), "the factor must be in (0, 1], found 1.5",
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(rt::LrSchedule::steps({}), "expected at least one EPOCHS=LR",
                       std::invalid_argument);
}
