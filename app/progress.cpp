#include "app/progress.h"

#include <unistd.h>

#include <algorithm>
#include <sstream>

#include "app/number_format.h"

namespace surge::app {
namespace {

// A terminal bar redrawn more often than this only flickers and costs time on slow terminals.
constexpr auto kBarInterval = std::chrono::milliseconds(200);
// A log line every few seconds shows the run is alive without flooding the log.
constexpr auto kLineInterval = std::chrono::seconds(2);
constexpr int kBarWidth = 20;

}  // namespace

double RunEnd::fraction_done(long step, double time_s) const {
  if (max_steps > 0) return double(step) / double(max_steps);
  return end_time_s > 0 ? time_s / end_time_s : 1.0;
}

ProgressStyle progress_style_for_stderr(bool quiet) {
  if (quiet) return ProgressStyle::none;
  return isatty(STDERR_FILENO) ? ProgressStyle::terminal_bar : ProgressStyle::plain_lines;
}

ProgressReporter::ProgressReporter(std::ostream& out, ProgressStyle style, RunEnd end, std::size_t particles,
                                   long first_step, double first_time_s)
    : out_(out),
      style_(style),
      end_(end),
      particles_(particles),
      start_(Clock::now()),
      last_report_(start_),
      first_step_(first_step),
      first_fraction_(std::clamp(end.fraction_done(first_step, first_time_s), 0.0, 1.0)) {}

ProgressReporter::~ProgressReporter() {
  if (bar_open_) out_ << '\n' << std::flush;
}

void ProgressReporter::update(long step, double time_s) {
  if (style_ == ProgressStyle::none) return;
  const Clock::time_point now = Clock::now();
  const double fraction = end_.fraction_done(step, time_s);
  if (style_ == ProgressStyle::terminal_bar) {
    if (now - last_report_ >= kBarInterval) draw(step, time_s, fraction, now);
    return;
  }
  const int decile = int(std::clamp(fraction, 0.0, 1.0) * 10.0);
  if (decile > last_decile_ || now - last_report_ >= kLineInterval) {
    last_decile_ = decile;
    draw(step, time_s, fraction, now);
  }
}

void ProgressReporter::finish(long step, double time_s) {
  if (style_ == ProgressStyle::none) return;
  if (step != last_step_) draw(step, time_s, end_.fraction_done(step, time_s), Clock::now());
  if (bar_open_) {
    out_ << '\n' << std::flush;
    bar_open_ = false;
  }
}

std::string ProgressReporter::describe(long step, double time_s, double fraction, double elapsed_s) const {
  const double steps_per_s = elapsed_s > 0 ? double(step - first_step_) / elapsed_s : 0.0;
  const bool by_steps = end_.max_steps > 0;
  std::ostringstream text;
  text << fixed(100.0 * std::min(fraction, 1.0), 1) << " %  t " << significant(time_s, 4);
  if (!by_steps) text << "/" << significant(end_.end_time_s, 4);
  text << " s  step " << with_thousands(step);
  if (by_steps) text << "/" << with_thousands(end_.max_steps);
  text << "  " << with_thousands(std::int64_t(particles_)) << " particles  " << engineering(steps_per_s)
       << " steps/s  ETA ";
  if (fraction > first_fraction_ && fraction < 1) {
    text << clock_duration(elapsed_s * (1.0 - fraction) / (fraction - first_fraction_));
  } else {
    text << "-";
  }
  return text.str();
}

void ProgressReporter::draw(long step, double time_s, double fraction, Clock::time_point now) {
  last_report_ = now;
  last_step_ = step;
  const double elapsed_s = std::chrono::duration<double>(now - start_).count();
  const std::string text = describe(step, time_s, fraction, elapsed_s);
  if (style_ == ProgressStyle::plain_lines) {
    out_ << "progress: " << text << '\n' << std::flush;
    return;
  }
  const int filled = int(std::clamp(fraction, 0.0, 1.0) * kBarWidth);
  // "\033[K" clears what a longer previous line left behind.
  out_ << "\r[" << std::string(std::size_t(filled), '#') << std::string(std::size_t(kBarWidth - filled), '.')
       << "] " << text << "\033[K" << std::flush;
  bar_open_ = true;
}

}  // namespace surge::app
