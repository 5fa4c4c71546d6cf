#pragma once
// A progress report for long scans (`staticnet data check`, checkpoint tools). Two modes:
//   terminal: one line redrawn in place with '\r': a bar, the percentage, the count, the rate
//             and the time left, e.g.
//               validating [##########..........]  50.0%  5000/10000 samples  12.3k/s  ETA 0:01
//   plain:    (a log file, CI) a complete line every `plain_interval`, and one at the end, so
//             logs stay readable:
//               validating: 50.0% (5000/10000 samples, 12.3k/s, ETA 0:01)
// A caller may add a note after the report (the trainer's running loss):
//   epoch 1/10 [#####...............]  25.0%  250/1000 batches  1.2k/s  ETA 0:01  loss 0.6931
//   epoch 1/10: 25.0% (250/1000 batches, 1.2k/s, ETA 0:01) loss 0.6931
// The caller decides the mode (usually stream_is_terminal(stderr)); tests inject both it and
// the clock.
#include <chrono>
#include <concepts>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>

namespace staticnet::runtime {

// True when `stream` is attached to a terminal (isatty on its descriptor).
bool stream_is_terminal(std::FILE* stream) noexcept;

struct ProgressOptions {
  std::string label = "progress";  // what is being done: "validating"
  std::string unit = "items";      // what is counted: "samples"
  std::uint64_t total = 0;         // the count at 100%; 0 when unknown (no bar, no ETA)
  bool terminal = false;           // redraw in place (true) or print whole lines (false)
  int bar_width = 30;
  // Terminal mode redraws at most this often; plain mode prints a line at most this often.
  std::chrono::milliseconds terminal_interval{100};
  std::chrono::milliseconds plain_interval{5000};
};

class ProgressBar {
 public:
  using Clock = std::function<std::chrono::steady_clock::time_point()>;

  // `out` must outlive the bar. `clock` defaults to std::chrono::steady_clock::now.
  ProgressBar(std::ostream& out, ProgressOptions options, Clock clock = {});
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;
  // Does not print: an unfinished bar (an exception unwinding) leaves the last report as it was,
  // except that a terminal line is ended so that an error message starts on a line of its own.
  ~ProgressBar();

  // Records that `done` items are complete; prints when the interval has passed. Cheap enough
  // to call once per item.
  void update(std::uint64_t done) {
    update(done, [] { return std::string(); });
  }
  // The same, with a note after the report: `note()` (returning a std::string) is called only
  // when a report is printed, so that the caller formats nothing on the other calls.
  template <std::invocable Note>
  void update(std::uint64_t done, Note&& note) {
    if (finished_)
      return;
    done_ = done;
    const auto now = clock_();
    if (due(now)) {
      note_ = std::forward<Note>(note)();
      report(done, now, false);
    }
  }
  // Prints the final report (once), with `note` when given, and ends the terminal line.
  void finish(std::string note = {});

  // The text of one report for `done` items after `elapsed` (no '\r', no newline); the final
  // report gives the time taken instead of the time left. Exposed for tests.
  std::string render(std::uint64_t done, std::chrono::duration<double> elapsed, bool final = false,
                     std::string_view note = {}) const;

  std::uint64_t reports() const noexcept { return reports_; }

 private:
  bool due(std::chrono::steady_clock::time_point now) const;
  void report(std::uint64_t done, std::chrono::steady_clock::time_point now, bool final);

  std::ostream& out_;
  ProgressOptions options_;
  Clock clock_;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_report_;
  std::uint64_t done_ = 0;
  std::string note_;  // the last report's note
  std::uint64_t reports_ = 0;
  std::size_t last_width_ = 0;  // terminal mode: characters to overwrite
  bool line_open_ = false;      // terminal mode: a '\r' line is on screen without its newline
  bool finished_ = false;
};

// "0:07", "12:03", "1:02:03"
std::string format_duration(std::chrono::duration<double> seconds);
// "950", "12.3k", "4.56M": a rate or count with an SI suffix, three significant digits.
std::string format_si(double value);

}  // namespace staticnet::runtime
