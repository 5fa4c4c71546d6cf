#include "staticnet/runtime/tools/progress.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <utility>

namespace staticnet::runtime {
namespace {

std::string printf_string(const char* format, auto... args) {
  char buffer[64];
  const int n = std::snprintf(buffer, sizeof buffer, format, args...);
  return std::string(buffer, static_cast<std::size_t>(std::clamp(n, 0, 63)));
}

}  // namespace

bool stream_is_terminal(std::FILE* stream) noexcept {
  if (stream == nullptr)
    return false;
  const int fd = fileno(stream);
  return fd >= 0 && isatty(fd) == 1;
}

std::string format_duration(std::chrono::duration<double> seconds) {
  const double s = seconds.count();
  if (!std::isfinite(s) || s < 0)
    return "?";
  if (s >= 100.0 * 3600.0)
    return ">99h";
  const auto total = static_cast<long long>(std::llround(s));
  const long long h = total / 3600;
  const long long m = total / 60 % 60;
  const long long sec = total % 60;
  if (h > 0)
    return printf_string("%lld:%02lld:%02lld", h, m, sec);
  return printf_string("%lld:%02lld", m, sec);
}

std::string format_si(double value) {
  if (!std::isfinite(value))
    return "?";
  static constexpr const char* suffixes[] = {"", "k", "M", "G", "T"};
  std::size_t i = 0;
  double v = std::fabs(value);
  while (v >= 999.5 && i + 1 < std::size(suffixes)) {
    v /= 1000.0;
    ++i;
  }
  const double shown = value < 0 ? -v : v;
  if (i == 0)
    return printf_string("%.0f", shown);
  const char* format = v >= 99.95 ? "%.0f%s" : v >= 9.995 ? "%.1f%s" : "%.2f%s";
  return printf_string(format, shown, suffixes[i]);
}

ProgressBar::ProgressBar(std::ostream& out, ProgressOptions options, Clock clock)
    : out_(out), options_(std::move(options)), clock_(std::move(clock)) {
  if (!clock_)
    clock_ = [] { return std::chrono::steady_clock::now(); };
  options_.bar_width = std::max(options_.bar_width, 1);
  start_ = clock_();
  last_report_ = start_;
}

ProgressBar::~ProgressBar() {
  if (line_open_) {
    out_ << '\n';
    out_.flush();
  }
}

bool ProgressBar::due(std::chrono::steady_clock::time_point now) const {
  const auto interval = options_.terminal ? options_.terminal_interval : options_.plain_interval;
  const bool first_draw = options_.terminal && reports_ == 0;
  return first_draw || now - last_report_ >= interval;
}

void ProgressBar::finish(std::string note) {
  if (finished_)
    return;
  if (!note.empty())
    note_ = std::move(note);
  report(done_, clock_(), true);
  finished_ = true;
  if (line_open_) {
    out_ << '\n';
    line_open_ = false;
  }
  out_.flush();
}

std::string ProgressBar::render(std::uint64_t done, std::chrono::duration<double> elapsed,
                                bool final, std::string_view note) const {
  const auto total = options_.total;
  const double seconds = elapsed.count();
  const double rate = seconds > 0 ? static_cast<double>(done) / seconds : 0.0;
  const double fraction =
      total > 0 ? std::min(1.0, static_cast<double>(done) / static_cast<double>(total)) : 0.0;

  std::string count = std::to_string(done);
  if (total > 0)
    count += "/" + std::to_string(total);
  count += " " + options_.unit;
  const std::string speed = seconds > 0 ? format_si(rate) + "/s" : "?/s";
  std::string time;
  if (final) {
    time = "in " + format_duration(elapsed);
  } else if (total > 0 && rate > 0) {
    time = "ETA " + format_duration(std::chrono::duration<double>(
                        static_cast<double>(total - std::min(done, total)) / rate));
  } else {
    time = "ETA ?";
  }
  const std::string percent =
      total > 0 ? printf_string("%5.1f%%", 100.0 * fraction) : std::string();

  if (options_.terminal) {
    std::string text = options_.label;
    if (total > 0) {
      const auto width = static_cast<std::size_t>(options_.bar_width);
      const auto filled = static_cast<std::size_t>(fraction * static_cast<double>(width));
      text += " [" + std::string(filled, '#') + std::string(width - filled, '.') + "] " + percent;
    }
    text += "  " + count + "  " + speed + "  " + time;
    if (!note.empty())
      text += "  " + std::string(note);
    return text;
  }
  std::string text = options_.label + ": ";
  if (total > 0)
    text += printf_string("%.1f%%", 100.0 * fraction) + " (" + count;
  else
    text += "(" + count;
  text += ", " + speed + ", " + time + ")";
  if (!note.empty())
    text += " " + std::string(note);
  return text;
}

void ProgressBar::report(std::uint64_t done, std::chrono::steady_clock::time_point now,
                         bool final) {
  const std::string text = render(done, now - start_, final, note_);
  if (options_.terminal) {
    out_ << '\r' << text;
    if (text.size() < last_width_)
      out_ << std::string(last_width_ - text.size(), ' ');
    last_width_ = text.size();
    line_open_ = true;
  } else {
    out_ << text << '\n';
  }
  out_.flush();
  last_report_ = now;
  ++reports_;
}

}  // namespace staticnet::runtime
