// Progress of a run on stderr. On a terminal: one bar redrawn in place a few times a second.
// In a log file or a pipe: a plain line now and then, never a carriage return, so logs stay readable.
#pragma once

#include <chrono>
#include <cstddef>
#include <ostream>
#include <string>

namespace surge::app {

// Where a run ends: after a number of steps, or at a simulated time.
struct RunEnd {
  long max_steps = 0;       // > 0: stop after this many steps
  double end_time_s = 0.0;  // used when max_steps == 0
  double fraction_done(long step, double time_s) const;
  bool reached(long step, double time_s) const { return fraction_done(step, time_s) >= 1.0; }
};

enum class ProgressStyle { none, terminal_bar, plain_lines };
// terminal_bar when stderr is a terminal, plain_lines otherwise, none when quiet.
ProgressStyle progress_style_for_stderr(bool quiet);

class ProgressReporter {
 public:
  // A resumed run starts at first_step, first_time_s: rates and the ETA count from there.
  ProgressReporter(std::ostream& out, ProgressStyle style, RunEnd end, std::size_t particles,
                   long first_step = 0, double first_time_s = 0.0);
  // Ends a bar left open, so an error message after it starts on a fresh line.
  ~ProgressReporter();
  ProgressReporter(const ProgressReporter&) = delete;
  ProgressReporter& operator=(const ProgressReporter&) = delete;

  void update(long step, double time_s);  // cheap when nothing is due
  void finish(long step, double time_s);  // the last report, at 100 % (or where the run stopped)

 private:
  using Clock = std::chrono::steady_clock;
  std::string describe(long step, double time_s, double fraction, double elapsed_s) const;
  void draw(long step, double time_s, double fraction, Clock::time_point now);

  std::ostream& out_;
  ProgressStyle style_;
  RunEnd end_;
  std::size_t particles_;
  Clock::time_point start_;
  Clock::time_point last_report_;
  int last_decile_ = 0;  // plain lines: the last 10 % mark reported
  long first_step_ = 0;
  double first_fraction_ = 0.0;
  long last_step_ = -1;  // the step last reported, so finish() does not repeat it
  bool bar_open_ = false;
};

}  // namespace surge::app
