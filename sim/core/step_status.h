// What a step leaves for the host to read: the clock, the last step's speed, and an instability with the
// particle that shows it. Every solver on every backend reports this one type.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "sim/core/vec.h"

namespace surge {

// Why a run is unstable: found on the device or the CPU, reported with the particle's creation id.
enum class Instability : int { none = 0, nan_value = 1, left_domain = 2, dt_collapse = 3 };

struct StepStatus {
  long step = 0;        // steps completed
  double time_s = 0;    // simulated time reached
  float dt_s = 0;       // last time step
  float max_speed = 0;  // [m/s] at the last step
  // The scene's emitter has stopped: its next layer no longer fits in the particles allocated for it.
  bool emitter_full = false;
  Instability instability = Instability::none;
  long bad_step = 0;               // step at which it was found
  std::uint32_t bad_particle = 0;  // creation id of the particle
  Vec3f bad_position{};
  Vec3f bad_velocity{};
  Vec3f bad_acceleration{};
  float bad_density = 0;  // [kg/m^3]; 0 for solvers without a density (DEM, n-body)
  // What to change in the scene, for solvers whose remedy is not the fluid solver's ([time] cfl, walls,
  // speed of sound); empty for those.
  std::string remedy;
  // A sentence naming step, particle and quantity; empty when stable.
  std::string diagnosis() const;
};

// The scene asks for more particles than the device memory holds.
class CapacityError : public std::runtime_error {
 public:
  CapacityError(const std::string& message, std::size_t requested_particles, std::size_t max_particles)
      : std::runtime_error(message),
        requested_particles_(requested_particles),
        max_particles_(max_particles) {}
  std::size_t requested_particles() const { return requested_particles_; }
  std::size_t max_particles() const { return max_particles_; }  // fluid particles that would fit

 private:
  std::size_t requested_particles_;
  std::size_t max_particles_;
};

// A device allocation failed for want of memory (cudaErrorMemoryAllocation): the CUDA backends turn it into
// the CapacityError above, with the count that fits in the memory free then (sim/backend/gpu_capacity.h).
class DeviceOutOfMemory : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace surge
