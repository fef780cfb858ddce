// The granular family's figures: contact durations (the time step is chosen from them) and the contact
// history's figures of a step.
#include "sim/dem/dem_setup.h"

#include <cmath>

#include "sim/core/named_value.h"

namespace surge {

namespace {

constexpr double kPi = 3.14159265358979323846;

}  // namespace

double linear_collision_time(double stiffness, double m_eff) {
  return kPi * std::sqrt(m_eff / stiffness);
}

double hertz_collision_time(double effective_modulus, double r_eff, double m_eff, double impact_speed) {
  return 2.87 * std::pow(m_eff * m_eff / (r_eff * effective_modulus * effective_modulus * impact_speed), 0.2);
}

std::vector<NamedValue> contact_history_figures(std::uint64_t contacts, std::uint32_t most_contacts,
                                                std::uint64_t overflow_last_step,
                                                std::uint64_t overflow_total, unsigned slots) {
  return {
      {"contacts", double(contacts)},
      {"most_contacts_of_a_grain", double(most_contacts)},
      {"contact_slots_per_grain", double(slots)},
      {"contact_overflow_last_step", double(overflow_last_step)},
      {"contact_overflow_total", double(overflow_total)},
  };
}

}  // namespace surge
