// Everything a backend needs to start a granular (DEM) run: the contact law and time step, the grid, the
// moving grains and the fixed ones. build_dem_setup() (sim/setup/build_dem_setup.h) makes it from a
// Scene whose solver is "dem".
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "sim/core/particle_frame.h"
#include "sim/core/vec.h"
#include "sim/dem/contact_history.h"
#include "sim/dem/dem_parameters.h"
#include "sim/index/grid_geometry.h"

namespace surge {

struct DemSetup {
  DemParameters params;
  GridGeometry grid;  // cells of one largest grain diameter over the domain box
  // Moving grains: position w = grain radius [m], velocity w = grain mass [kg]; id = creation index;
  // density = the grain's material density m / (4/3 pi r^3) [kg/m^3]; pressure = 0 until the first step.
  ParticleFrame grains;
  std::vector<Vec4f> fixed;                     // fixed grains, sorted by cell; w = grain radius [m]
  std::vector<std::uint32_t> fixed_cell_start;  // cell index of `fixed` (cell_count + 1 entries)
  // A run continued from another (the viewer's live mode switch) starts at grains.time_s and grains.step with
  // the grains' spin (in `grains` order, with rotation) and the contact history (contact_slots per grain, by
  // creation id, with Mindlin friction). Empty for a new run: no spin, no contacts yet.
  std::vector<Vec4f> angular_velocity;
  std::vector<ContactSlot> history;
};

struct NamedValue;

// Duration of a head-on contact of the linear law without damping, pi sqrt(m* / k_n) [s]: the damped
// contact lasts longer (pi / omega_d), so a step chosen from this one is on the safe side.
double linear_collision_time(double stiffness, double m_eff);
// Duration of a Hertz contact at impact speed v (Johnson 1985, eq. 11.24):
// t_c = 2.87 (m*^2 / (R* E*^2 v))^(1/5) [s].
double hertz_collision_time(double effective_modulus, double r_eff, double m_eff, double impact_speed);

// The contact history's figures of the last step, as Simulation::step_figures() reports them: contacts
// kept, the most of one grain, and the contacts that found no free slot (the last step's and the total
// since the start); each slot holds one contact (sim/dem/contact_history.h).
std::vector<NamedValue> contact_history_figures(std::uint64_t contacts, std::uint32_t most_contacts,
                                                std::uint64_t overflow_last_step,
                                                std::uint64_t overflow_total, unsigned slots);

// Bytes of device memory per moving grain and per fixed grain, for "how many fit" messages.
std::size_t device_bytes_per_grain();

}  // namespace surge
