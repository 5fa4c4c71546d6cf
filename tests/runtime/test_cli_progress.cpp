// The progress bar behind `staticnet data check`: a redrawn bar on a terminal, whole lines
// otherwise. The terminal decision and the clock are injected, so both modes are tested here.
#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <sstream>
#include <string>

#include "staticnet/runtime/tools/progress.hpp"

namespace {

using namespace staticnet::runtime;
using namespace std::chrono_literals;

// A clock the test moves by hand.
struct FakeClock {
  std::chrono::steady_clock::time_point now{};
  ProgressBar::Clock function() {
    return [this] { return now; };
  }
};

ProgressOptions options(bool terminal, std::uint64_t total) {
  ProgressOptions o;
  o.label = "scanning";
  o.unit = "samples";
  o.total = total;
  o.terminal = terminal;
  o.bar_width = 10;
  o.terminal_interval = 100ms;
  o.plain_interval = 5s;
  return o;
}

std::size_t count(const std::string& text, char c) {
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), c));
}

}  // namespace

TEST_CASE("progress: durations and SI rates are short and exact") {
  CHECK(format_duration(0s) == "0:00");
  CHECK(format_duration(7.4s) == "0:07");
  CHECK(format_duration(723s) == "12:03");
  CHECK(format_duration(3723s) == "1:02:03");
  CHECK(format_duration(std::chrono::duration<double>(-1.0)) == "?");
  CHECK(format_si(950) == "950");
  CHECK(format_si(12345) == "12.3k");
  CHECK(format_si(4'560'000) == "4.56M");
  CHECK(format_si(123'456) == "123k");
  CHECK(format_si(999.7) == "1.00k");
}

TEST_CASE("progress: the terminal rendering has a bar, percentage, count, rate and ETA") {
  std::ostringstream out;
  FakeClock clock;
  ProgressBar bar(out, options(true, 100), clock.function());
  // 50 of 100 in 5 s: 10/s, 5 s left.
  CHECK(bar.render(50, 5s) == "scanning [#####.....]  50.0%  50/100 samples  10/s  ETA 0:05");
  CHECK(bar.render(100, 10s, true) ==
        "scanning [##########] 100.0%  100/100 samples  10/s  in 0:10");
  // Nothing done yet: no rate, no ETA.
  CHECK(bar.render(0, 0s) == "scanning [..........]   0.0%  0/100 samples  ?/s  ETA ?");
}

TEST_CASE("progress: the plain rendering is one readable line") {
  std::ostringstream out;
  FakeClock clock;
  ProgressBar bar(out, options(false, 200), clock.function());
  CHECK(bar.render(50, 5s) == "scanning: 25.0% (50/200 samples, 10/s, ETA 0:15)");
  CHECK(bar.render(200, 20s, true) == "scanning: 100.0% (200/200 samples, 10/s, in 0:20)");
}

TEST_CASE("progress: an unknown total shows the count and rate only") {
  std::ostringstream out;
  FakeClock clock;
  ProgressBar bar(out, options(false, 0), clock.function());
  CHECK(bar.render(30, 3s) == "scanning: (30 samples, 10/s, ETA ?)");
}

TEST_CASE("progress: terminal mode redraws one line in place with carriage returns") {
  std::ostringstream out;
  FakeClock clock;
  ProgressBar bar(out, options(true, 1000), clock.function());
  bar.update(1);  // the first update draws at once
  CHECK(bar.reports() == 1);
  clock.now += 50ms;
  bar.update(2);  // within the redraw interval: nothing
  CHECK(bar.reports() == 1);
  for (std::uint64_t done = 100; done <= 1000; done += 100) {
    clock.now += 100ms;
    bar.update(done);
  }
  CHECK(bar.reports() == 11);
  const std::string before_finish = out.str();
  CHECK(count(before_finish, '\r') == 11);
  CHECK(count(before_finish, '\n') == 0);  // one line, overwritten
  bar.finish();
  const std::string text = out.str();
  CHECK(count(text, '\n') == 1);  // finish ends the line
  INFO(text);
  // 1000 in 1.05 s; "in 0:01" is one character shorter than "ETA 0:00", hence the blank.
  CHECK(text.ends_with("\rscanning [##########] 100.0%  1000/1000 samples  952/s  in 0:01 \n"));
  bar.finish();  // idempotent
  CHECK(out.str() == text);
}

TEST_CASE("progress: a shorter terminal line blanks what the longer one left") {
  std::ostringstream out;
  FakeClock clock;
  ProgressOptions o = options(true, 0);  // no total: the text length follows the count
  ProgressBar bar(out, o, clock.function());
  clock.now += 1s;
  bar.update(12345);  // "scanning  12345 samples  12.3k/s  ETA ?"
  clock.now += 12s;
  bar.update(12350);  // "scanning  12350 samples  950/s  ETA ?": two characters shorter
  const std::string text = out.str();
  const auto second = text.rfind('\r');
  REQUIRE(second != std::string::npos);
  const std::string first_line = text.substr(1, second - 1);
  const std::string second_line = text.substr(second + 1);
  CHECK(first_line == "scanning  12345 samples  12.3k/s  ETA ?");
  CHECK(second_line == "scanning  12350 samples  950/s  ETA ?  ");
}

TEST_CASE("progress: plain mode prints whole lines at most every interval, and a last one") {
  std::ostringstream out;
  FakeClock clock;
  ProgressBar bar(out, options(false, 100), clock.function());
  for (std::uint64_t done = 1; done <= 100; ++done) {
    clock.now += 100ms;  // 10 s in all: a line at 5 s and at 10 s
    bar.update(done);
  }
  CHECK(bar.reports() == 2);
  bar.finish();
  const std::string text = out.str();
  CHECK(count(text, '\r') == 0);
  CHECK(count(text, '\n') == 3);
  CHECK(text ==
        "scanning: 50.0% (50/100 samples, 10/s, ETA 0:05)\n"
        "scanning: 100.0% (100/100 samples, 10/s, ETA 0:00)\n"
        "scanning: 100.0% (100/100 samples, 10/s, in 0:10)\n");
}

TEST_CASE("progress: a note follows the report, and is asked for only when one is printed") {
  for (const bool terminal : {false, true}) {
    CAPTURE(terminal);
    std::ostringstream out;
    FakeClock clock;
    ProgressBar bar(out, options(terminal, 100), clock.function());
    int asked = 0;
    for (std::uint64_t done = 1; done <= 100; ++done) {
      clock.now += 100ms;  // a report every 100 ms on a terminal, every 5 s in plain mode
      bar.update(done, [&] { return "loss " + std::to_string(++asked); });
    }
    CHECK(asked == static_cast<int>(bar.reports()));
    CHECK(asked == (terminal ? 100 : 2));
    bar.finish("loss 0.25");
    const std::string text = out.str();
    if (terminal) {
      CHECK(text.find("\rscanning [#####.....]  50.0%  50/100 samples  10/s  ETA 0:05  loss 50") !=
            std::string::npos);
      // As long as the line before ("... ETA 0:00  loss 100"): nothing to blank.
      CHECK(text.ends_with(
          "\rscanning [##########] 100.0%  100/100 samples  10/s  in 0:10  loss 0.25\n"));
    } else {
      CHECK(text ==
            "scanning: 50.0% (50/100 samples, 10/s, ETA 0:05) loss 1\n"
            "scanning: 100.0% (100/100 samples, 10/s, ETA 0:00) loss 2\n"
            "scanning: 100.0% (100/100 samples, 10/s, in 0:10) loss 0.25\n");
    }
  }
}

TEST_CASE("progress: a short plain run prints only its final line") {
  std::ostringstream out;
  FakeClock clock;
  ProgressBar bar(out, options(false, 10), clock.function());
  for (std::uint64_t done = 1; done <= 10; ++done)
    bar.update(done);
  clock.now += 2s;
  bar.finish();
  CHECK(out.str() == "scanning: 100.0% (10/10 samples, 5/s, in 0:02)\n");
}

TEST_CASE("progress: an abandoned terminal bar ends its line so an error starts afresh") {
  std::ostringstream out;
  FakeClock clock;
  {
    ProgressBar bar(out, options(true, 10), clock.function());
    bar.update(3);
  }
  CHECK(out.str().ends_with("\n"));
  CHECK(count(out.str(), '\n') == 1);
}

TEST_CASE("progress: the terminal test answers for real descriptors") {
  std::FILE* file = std::tmpfile();
  REQUIRE(file != nullptr);
  CHECK_FALSE(stream_is_terminal(file));  // a regular file is never a terminal
  std::fclose(file);
  CHECK_FALSE(stream_is_terminal(nullptr));
}
