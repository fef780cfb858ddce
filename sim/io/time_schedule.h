// Events every `every` simulated seconds under an adaptive time step, which does not land on them: an event
// k (time k * every) is due at the first step that ends at or after it, and is taken at that step's own
// time, t_k in [k every, k every + dt). A step that passes several event times takes one event; the next is
// the first multiple after it. Gauge samples (gauge_recorder.h) and time-spaced frames (app/frame_writer.h)
// both follow it.
#pragma once

#include <array>
#include <charconv>
#include <cmath>

namespace surge {

// The double a float setting was written as: a scene's 0.001 is kept as the float 0.0010000000475, whose
// multiples would drift past the decimal times a run ends on (10 x 0.001 = 0.01 s).
inline double as_written(float value) {
  std::array<char, 32> text{};
  const auto end = std::to_chars(text.data(), text.data() + text.size(), value).ptr;
  double exact = value;
  std::from_chars(text.data(), end, exact);
  return exact;
}

class TimeSchedule {
 public:
  TimeSchedule() = default;
  // `every` > 0 [s]; the first event is at first_event * every.
  TimeSchedule(double every_s, long first_event) : every_s_(every_s), next_(first_event) {}

  bool enabled() const { return every_s_ > 0; }
  double every_s() const { return every_s_; }
  double next_time_s() const { return double(next_) * every_s_; }
  long next_event() const { return next_; }  // k of the next event (checkpoints keep it)

  // Whether an event is due at a step ending at time_s; if so, the next one is scheduled.
  bool take(double time_s) {
    if (!enabled() || time_s + slack() < next_time_s()) return false;
    next_ = long(std::floor((time_s + slack()) / every_s_)) + 1;
    return true;
  }

 private:
  // A time that is k * every up to rounding (0.1 + 0.2 against 3 * 0.1) counts as reaching it.
  double slack() const { return 1e-9 * every_s_; }

  double every_s_ = 0;
  long next_ = 0;
};

}  // namespace surge
