// The one shape every solver has (WCSPH, DFSPH, PBF, DEM, n-body): a class template over the executor that
// runs it (CpuExecutor's OpenMP loops, CudaExecutor's kernels, HybridExecutor's CPU index), which owns its
// particles on that executor's side and steps them. SolverSimulation (sim/backend/solver_simulation.h) is
// the only class that puts a solver behind surge::Simulation, so status, downloads, timers, parameters and
// the renderer's feed are written once for all of them.
#pragma once

#include <concepts>
#include <cstddef>
#include <string_view>
#include <vector>

#include "sim/core/live_parameter.h"
#include "sim/core/named_value.h"
#include "sim/core/particle_frame.h"
#include "sim/core/render_targets.h"
#include "sim/core/step_status.h"

namespace surge {

// What SolverSimulation needs of a solver. Optional members it uses when present:
//   set_stirring(const Stirring&)                     the viewer's stirring hand (SPH)
//   has_emitter(), set_emitter_enabled(bool), emitter_enabled()   an [[emitter]] nozzle (SPH)
//   diagnostics() -> std::vector<NamedValue>          figures costly enough to compute only when asked
//                                                     (n-body energies), added to step_figures()
//   begin_snapshot(slot)                              on executors with kSnapshotsOnDevice: the overlapped
//                                                     export's device-side snapshot
//   variant_name() -> std::string                     a lesson variant of the step, for backend_name()
//   static constexpr bool kStatusOnDevice             status() reads the device (SolverSimulation then
//                                                     tallies no figures per step)
//   static constexpr const char* kPositionW           what position.w holds ("radius", "mass"), for exports
template <typename S>
concept StepSolver = requires(S& solver, const S& constant, ParticleFrame& frame, std::string_view name,
                              const ParameterValue& value, const DeviceParticleTargets& targets) {
  // One step; may return before the device has finished it.
  solver.step();
  // Waits for the device; a small readback on the GPU.
  { solver.status() } -> std::same_as<StepStatus>;
  // The moving particles to the host (waits), for exports and tests.
  solver.download(frame);
  // Moving particles taking part now, allocated (an emitter grows into it), and static ones (walls).
  { constant.particle_count() } -> std::convertible_to<std::size_t>;
  { constant.capacity() } -> std::convertible_to<std::size_t>;
  { constant.static_particle_count() } -> std::convertible_to<std::size_t>;
  // What it runs with, as benchmarks record it.
  { constant.parameters() } -> std::same_as<std::vector<NamedValue>>;
  // The parameters it takes between steps, and one applied: false for a name it does not take live.
  { constant.live_parameters() } -> std::same_as<std::vector<LiveParameter>>;
  { solver.set_parameter(name, value) } -> std::same_as<bool>;
  // The last step's figures (iterations, errors): numbers, cheap, averaged over a run by the adapter.
  { solver.named_figures() } -> std::same_as<std::vector<NamedValue>>;
  // Positions and a scalar into device memory, device to device; false where the particles live on the
  // host (the caller then downloads).
  { solver.copy_to_device_buffers(targets) } -> std::same_as<bool>;
};

}  // namespace surge
