// What the app sees of a running simulation, whatever backend steps it.
// step() may run asynchronously (GPU); status(), download() and finish_download() are the only calls that
// wait for it, and each records what it copies in the transfer ledger.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/core/live_parameter.h"
#include "sim/core/named_value.h"
#include "sim/core/particle_arrays.h"
#include "sim/core/particle_frame.h"
#include "sim/core/render_targets.h"
#include "sim/core/solver_state.h"
#include "sim/core/stage_times.h"
#include "sim/core/step_status.h"
#include "sim/core/transfer_ledger.h"
#include "sim/geometry/fluid_surface.h"
#include "sim/index/index_build.h"
#include "sim/sph/force_pass.h"
#include "sim/sph/gauge.h"
#include "sim/sph/solid_surface.h"
#include "sim/sph/sph_setup.h"

namespace surge {

// Particles that never move while a simulation runs, published by name so that a viewer or an exporter can
// draw them without knowing the solver or rebuilding its setup.
struct StaticField {
  std::string name;              // kBoundaryField, ...
  std::vector<Vec4f> positions;  // xyz [m]; w as the solver keeps it (the walls: Akinci volume V_b [m^3])
};
// The wall particles of the fluid solvers, sorted by cell as the backend holds them.
inline constexpr std::string_view kBoundaryField = "boundary";

class Simulation : public GaugeSource {
 public:
  virtual ~Simulation() = default;
  virtual std::string backend_name() const = 0;  // "cpu (2 threads)", "gpu (NVIDIA H200)"
  // Fluid particles taking part now. With an emitter it grows as layers enter; the GPU WCSPH backend,
  // which counts them on the device, reports the count of the last status() or download().
  virtual std::size_t fluid_count() const = 0;
  virtual std::size_t boundary_count() const = 0;
  // Fluid particles allocated: fluid_count() can grow to this (a viewer sizes its buffers by it).
  virtual std::size_t capacity() const { return fluid_count(); }
  // What the particles' position.w holds, for exports that carry it as an attribute of that name: a grain's
  // "radius" [m], a body's "mass"; empty where it is the solver's own (fluids).
  virtual std::string position_w_name() const { return ""; }

  virtual void step() = 0;
  virtual StepStatus status() = 0;                  // waits for the device; small readback
  virtual void download(ParticleFrame& frame) = 0;  // waits; copies the fluid particles to the host

  // Overlapped export (docs/lessons/6-trajectories.md). begin_download(slot), on the stepping thread,
  // snapshots the fluid particles as the steps issued so far leave them; a backend that can returns
  // before the copy to the host is done, so the caller may step on. finish_download(slot, frame), on any
  // one thread, waits for that snapshot and puts it in `frame` (its time and step are not set). A slot is
  // begun again only after its finish_download has returned; slots are 0 .. kMaxDownloadSlots - 1.
  // The default is a synchronous download() into host memory held per slot, so every backend works;
  // backends whose particles live on the GPU override both (a device-to-device copy into staging memory,
  // then a copy to pinned host memory on a copy stream).
  static constexpr std::size_t kMaxDownloadSlots = 4;
  virtual void begin_download(std::size_t slot) { download(host_slot(slot)); }
  virtual void finish_download(std::size_t slot, ParticleFrame& frame) { std::swap(frame, host_slot(slot)); }
  virtual StageTimes stage_times() = 0;  // waits; accumulated since reset_timers()
  virtual void reset_timers() = 0;
  // The least bytes each stage of the last step had to move through memory (every array it reads or
  // writes touched once), for a benchmark's fraction of the memory floor; all 0 where no model is written.
  virtual StageBytes stage_floor_bytes() { return {}; }
  // What the solver runs with; some depend on the particle count (spacing, mass), so benchmarks record them.
  virtual std::vector<NamedValue> parameters() const = 0;
  // Figures of the last completed step that only some solvers have; waits for the device.
  virtual std::vector<NamedValue> step_figures() { return {}; }
  // The SPH solvers' neighbour census (sim/sph/neighbor_census.h): a pass of its own with small readbacks
  // on the GPU, for benchmarks; empty for the other solvers.
  virtual std::vector<NamedValue> neighbor_census() { return {}; }
  // Writes the fluid particles' positions (and a scalar) into device memory, device to device: nothing
  // crosses the bus and the ledger is unchanged. Complete when it returns. Returns false when this
  // backend's particles live on the host; the caller then uses download().
  virtual bool copy_to_device_buffers(const DeviceParticleTargets& targets) {
    (void)targets;
    return false;
  }
  // The fluid's surface mesh (sim/geometry/fluid_surface.h) made where the particles live, from the
  // particles as the steps issued so far leave them: on the GPU backends by the device mesher
  // (sim/geometry/fluid_surface_gpu.h), so only the mesh crosses the bus (the ledger's "surface mesh" and
  // "surface mesh sizes"). Waits. Returns false where the particles live on the host: the caller meshes a
  // download with extract_fluid_surface.
  virtual bool mesh_fluid_surface(const FluidSurfaceSettings& settings, FluidSurface& surface) {
    (void)settings;
    (void)surface;
    return false;
  }
  // Sets the stirring hand (sim/sph/sph_setup.h) for the following steps; radius 0 turns it off.
  // Returns false for a solver without one.
  virtual bool set_stirring(const Stirring& stirring) {
    (void)stirring;
    return false;
  }
  // The parameters set_parameter() takes while running (each family's parameter table); the others apply on
  // restart. Empty for a solver without live parameters.
  virtual std::vector<LiveParameter> live_parameters() const { return {}; }
  // Changes one of live_parameters() for the following steps: only the values the kernels are passed
  // change, nothing crosses the bus. Throws ParameterError for any other name or a value out of range.
  virtual void set_parameter(std::string_view name, const ParameterValue& value);
  // Whether the scene has an [[emitter]]; set_emitter_enabled switches it on or off for the following steps
  // and returns false when there is none.
  virtual bool has_emitter() const { return false; }
  virtual bool set_emitter_enabled(bool enabled) {
    (void)enabled;
    return false;
  }
  virtual bool emitter_enabled() const { return false; }
  // Gauges (sim/sph/gauge.h) of the SPH solvers: set_gauges hands the probes over once (false for a solver
  // without gauges; std::invalid_argument for a kind the solver cannot measure). sample_gauges, valid after
  // the first step, computes them where the particles live and waits: only their values cross the bus (the
  // ledger's "gauge values"), in GaugeProbe::first_value order.
  bool set_gauges(const std::vector<GaugeProbe>& probes) override {
    (void)probes;
    return false;
  }
  void sample_gauges(std::vector<float>& values) override { values.clear(); }
  // The wall particles where the scene's moving solids have carried them (positions, w = volume), for the
  // renderer; false when nothing moves (then the "boundary" static field stands). Waits; on the GPU a copy
  // the ledger records.
  virtual bool download_moving_boundary(std::vector<Vec4f>& positions) {
    (void)positions;
    return false;
  }
  // The scene's solid bodies where they stand now, one pose per solid_surfaces() entry, for drawing them;
  // false when no solid moves (then every SolidSurface::rest stands). Waits; on the GPU a readback of
  // sizeof(BodyPose) bytes a body, recorded in the ledger as kSolidPosesTransfer.
  virtual bool download_solid_poses(std::vector<BodyPose>& poses) {
    (void)poses;
    return false;
  }
  // The moving particles' arrays in place (sim/core/particle_arrays.h), after waiting for the steps issued so
  // far; nothing is copied and the ledger is unchanged. They hold until the next step(), whose sort by cell
  // gathers the particles into a second set of buffers and swaps: ask again after stepping. nullopt for a
  // solver that keeps them in another layout (n-body bodies): use download().
  virtual std::optional<ParticleArrays> particle_arrays() { return std::nullopt; }
  // Checkpoints (sim/core/solver_state.h, sim/io/checkpoint.h). save_state waits for the steps issued and
  // puts everything the next steps read into `state`; false where the simulation cannot (hybrid-overlap,
  // whose index pipeline is state it does not keep). load_state restores a state saved by the same solver
  // on the same kind of backend for the same setup, so that the steps that follow repeat the saved run's
  // bit for bit; StateMismatch, naming the section, for anything else.
  virtual bool save_state(SolverState& state) {
    (void)state;
    return false;
  }
  virtual void load_state(const SolverState& state) {
    (void)state;
    throw StateMismatch(backend_name() + " does not restore checkpoints");
  }
  TransferLedger& ledger() { return ledger_; }

  // What make_simulation and switch_execution_mode (sim/backend/simulation_factory.h) published: the walls
  // of a fluid scene; nothing for solvers without walls (DEM, n-body).
  const std::vector<StaticField>& static_fields() const { return static_fields_; }
  // The field called `name`, or nullptr when none was published.
  const StaticField* static_field(std::string_view name) const {
    for (const StaticField& field : static_fields_)
      if (field.name == name) return &field;
    return nullptr;
  }
  // Called once per field by the factory, where the setup that holds it is at hand, so that the backends
  // need not know who draws their walls.
  void publish_static_field(StaticField field) { static_fields_.push_back(std::move(field)); }
  // The scene's [[solid]]s' surfaces in their bodies' frames (solid_surface.h), in body order, published
  // by the factory beside the walls; empty for a scene without solids and for solvers without walls.
  const std::vector<SolidSurface>& solid_surfaces() const { return solid_surfaces_; }
  void publish_solid_surfaces(std::vector<SolidSurface> surfaces) { solid_surfaces_ = std::move(surfaces); }

 protected:
  TransferLedger ledger_;

 private:
  ParticleFrame& host_slot(std::size_t slot) {
    if (slot >= kMaxDownloadSlots) {
      throw std::out_of_range("download slot " + std::to_string(slot) + " out of range (0 to " +
                              std::to_string(kMaxDownloadSlots - 1) + ")");
    }
    return default_download_slots_[slot];
  }
  // Fixed size, so that the stepping thread filling one slot never moves another the writer is reading.
  std::array<ParticleFrame, kMaxDownloadSlots> default_download_slots_;
  std::vector<StaticField> static_fields_;
  std::vector<SolidSurface> solid_surfaces_;
};

// Throws the ParameterError for a name `simulation` does not take live: unknown, or applied on restart.
[[noreturn]] void refuse_parameter(const Simulation& simulation, std::string_view name);

// The CPU backend starts at setup.fluid's time_s and step, so a run can continue from a downloaded frame.
std::unique_ptr<Simulation> make_cpu_simulation(const SphSetup& setup);

// How the GPU-resident backend runs its step. The defaults are the fast choices; the others exist for the
// classroom lessons (docs/lessons/) and give the same physics.
struct GpuStepOptions {
  IndexBuild index_build = IndexBuild::radix_sort;  // lesson 5: atomics (counting) vs radix sort
  bool reorder = true;  // lesson 3: false keeps particles in creation order (no gather by cell)
  ForcePass force_pass = ForcePass::single;  // lesson 4: divergence
  // Each step captured once as a CUDA graph and replayed by one launch (sim/backend/cuda_step_graphs.h):
  // WCSPH without a running emitter. Off by default until measured on the GPU (docs/perf/).
  bool cuda_graphs = false;
};

// Throws std::runtime_error when the build has no CUDA backend or no GPU is present, and
// CapacityError when the particles do not fit in device memory. Starts at setup.fluid's time_s and step.
std::unique_ptr<Simulation> make_cuda_simulation(const SphSetup& setup, const GpuStepOptions& options);
std::unique_ptr<Simulation> make_cuda_simulation(const SphSetup& setup,
                                                 IndexBuild index_build = IndexBuild::radix_sort);

}  // namespace surge
