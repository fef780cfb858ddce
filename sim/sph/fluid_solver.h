// What every SPH solver (WCSPH, DFSPH, PBF) shares of the StepSolver shape (sim/core/solver.h): the fluid's
// particles (FluidState) and the members that only read or write them. A solver derives from it and adds its
// step, parameters and figures.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/core/named_value.h"
#include "sim/core/particle_arrays.h"
#include "sim/core/render_targets.h"
#include "sim/core/stage_times.h"
#include "sim/sph/fluid_parameter_specs.h"
#include "sim/sph/fluid_state.h"
#include "sim/sph/gauges.h"
#include "sim/sph/kernels.h"
#include "sim/sph/neighbor_census.h"
#include "sim/sph/rank_hooks.h"
#include "sim/sph/solid_surface.h"
#include "sim/sph/solver_parameter_specs.h"

namespace surge {

template <typename Exec>
class FluidSolver {
 public:
  FluidSolver(Exec& exec, const SphSetup& setup)
      : fluid_(exec, setup), static_count_(setup.boundary.size()) {}

  FluidState<Exec>& fluid() { return fluid_; }
  const FluidState<Exec>& fluid() const { return fluid_; }

  StepStatus status() { return fluid_.status; }
  void download(ParticleFrame& frame) { fluid_.download(frame); }
  ParticleArrays particle_arrays() {
    if constexpr (Exec::kOnDevice) fluid_.exec.synchronize();
    return {fluid_.position.data(), fluid_.velocity.data(), fluid_.density.data(),
            fluid_.pressure.data(), fluid_.id.data(),       fluid_.n,
            Exec::kOnDevice};
  }
  void begin_snapshot(std::size_t slot) { fluid_.begin_snapshot(slot); }
  std::size_t particle_count() const { return fluid_.n; }
  std::size_t capacity() const { return fluid_.capacity; }
  std::size_t static_particle_count() const { return static_count_; }

  // On a device executor the renderer's buffers are written on the device (the viewer's interop path).
  bool copy_to_device_buffers(const DeviceParticleTargets& targets) {
    if constexpr (Exec::kSnapshotsOnDevice) {
      const Vec4f* position = fluid_.position.data();
      const Vec4f* velocity = fluid_.velocity.data();
      const float* density = fluid_.density.data();
      const float* pressure = fluid_.pressure.data();
      Vec4f* out_position = targets.d_position;
      float* out_scalar = targets.d_scalar;
      const ParticleScalar scalar = targets.scalar;
      fluid_.exec.for_each(fluid_.n, [=] SURGE_LAMBDA(std::uint32_t i) {
        out_position[i] = position[i];
        if (out_scalar) out_scalar[i] = render_scalar(scalar, velocity[i], density[i], pressure[i]);
      });
      // The caller unmaps the GL buffers next, on another stream: the writes must be done by then.
      fluid_.exec.synchronize();
      return true;
    } else {
      (void)targets;
      return false;  // the particles are on the host: the caller downloads them
    }
  }

  // The wall particles where the moving solids stand after the last step (sorted with the walls), for
  // drawing them; false when no solid moves and the walls published at the start stand.
  bool download_moving_boundary(std::vector<Vec4f>& positions) {
    if (!fluid_.solids.moving()) return false;
    fluid_.exec.download(positions, fluid_.boundary, static_count_, "moving wall particles for drawing");
    return true;
  }

  // The bodies' poses after the last step (Simulation::download_solid_poses); false when no solid moves.
  bool download_solid_poses(std::vector<BodyPose>& poses) {
    if (!fluid_.solids.moving()) return false;
    fluid_.solids.download_poses(poses, kSolidPosesTransfer);
    return true;
  }

  // The hand joins the non-pressure forces of the next step: every pass copies params when it launches.
  void set_stirring(const Stirring& stirring) { fluid_.params.stirring = stirring; }
  bool has_emitter() const { return fluid_.emitter.present; }
  void set_emitter_enabled(bool enabled) { fluid_.schedule.enabled = enabled; }
  bool emitter_enabled() const { return has_emitter() && fluid_.schedule.enabled; }

  // Several ranks (rank_hooks.h): set by a distributed driver on a host executor before the first step.
  void set_rank_hooks(RankHooks hooks) {
    static_assert(!Exec::kOnDevice, "a device transport would refresh the halo where it is");
    ranks_ = std::move(hooks);
    if (ranks_.sum_in_rank_order) fluid_.solids.set_rank_sum(ranks_.sum_in_rank_order);
  }
  bool on_ranks() const { return ranks_.set(); }
  // Each particle's RankWork by creation id on ranks; null in one process and on a device.
  const std::uint8_t* rank_work() const {
    if constexpr (Exec::kOnDevice) return nullptr;
    return ranks_.work_by_id;
  }

  // Overwrites the halo copies of `values` with their owners' values, on ranks; nothing in one process.
  template <typename T>
  void refresh_halo(typename Exec::template Buffer<T>& values) {
    if constexpr (!Exec::kOnDevice) {
      if (ranks_.refresh_halo) ranks_.refresh_halo(values.data(), sizeof(T));
    }
  }

  // The average of `values` over the fluid: one process's particles, or on ranks every rank's owned ones.
  // (Public: it holds a device lambda.)
  double average(const typename Exec::template Buffer<float>& values) {
    if constexpr (!Exec::kOnDevice) {
      if (ranks_.owned_average) return ranks_.owned_average(values.data());
    }
    const float* v = values.data();
    return fluid_.exec.sum(fluid_.n, [=] SURGE_LAMBDA(std::uint32_t i) { return v[i]; }) / double(fluid_.n);
  }

  // Simulation::neighbor_census: asked for by a benchmark once, after its timed steps (neighbor_census.h),
  // through the cells as a GPU pass searches them. Its sums are readbacks: not part of step_figures().
  std::vector<NamedValue> neighbor_census() {
    CellIndexView fluid = fluid_.fluid_view(), boundary = fluid_.boundary_view();
    for (CellIndexView* view : {&fluid, &boundary}) {
      view->list_start = nullptr;
      view->list = nullptr;
      view->list_gradient = nullptr;
    }
    return count_neighbors(fluid_.exec, std::uint32_t(fluid_.n), fluid_.grid, fluid, boundary,
                           fluid_.params.support)
        .figures();
  }

  // The fluid a sum over the fluid counts (the gauges, the fluid's force on a solid): every particle in one
  // process; on ranks the rank's owned ones (rank_hooks.h), so that the ranks' sums add up to one process's.
  CellIndexView counted_fluid(const CellIndexView& all) {
    if constexpr (!Exec::kOnDevice) {
      if (ranks_.owned_fluid) return ranks_.owned_fluid(all);
    }
    return all;
  }

  // Gauges (sim/sph/gauges.h): the probes go to the executor's side once; sample_gauges then computes every
  // gauge where the particles are, one thread a sum and then one a gauge, and copies only the values to the
  // host (on the GPU the ledger records them as "gauge values"). Valid after the first step, which builds
  // the cell index.
  void set_gauges(const std::vector<GaugeProbe>& probes) {
    gauge_count_ = std::uint32_t(probes.size());
    gauge_values_count_ = gauge_value_total(probes);
    std::vector<std::uint32_t> gauged;
    for (const GaugeProbe& probe : probes)
      if (probe.kind == GaugeKind::force) gauged.push_back(probe.solid);
    fluid_.solids.set_force_gauges(gauged);
    if (gauge_count_ == 0) return;
    host_probes_ = probes;
    gauge_sum_offsets_.clear();
    std::uint32_t sums = 0;
    gauge_sum_stride_ = 0;  // the most sums a gauge has: each gauge's share of the GPU's slots
    for (const GaugeProbe& probe : probes) {
      gauge_sum_offsets_.push_back(sums);
      const std::uint32_t count = gauge_sum_count(probe, fluid_.params.spacing);
      sums += count;
      gauge_sum_stride_ = std::max(gauge_sum_stride_, count);
    }
    gauge_sum_offsets_.push_back(sums);
    fluid_.exec.upload(gauge_probes_, probes, "gauge probes");
    fluid_.exec.allocate(gauge_values_, gauge_values_count_);
    fluid_.exec.allocate(gauge_slot_sums_, std::size_t(gauge_count_) * gauge_sum_stride_);
  }
  // On ranks, a host executor's: this rank's sums of every gauge (gauges.h, "On ranks"), each gauge's at its
  // offset, for the driver to add over the ranks; then gauges_from_sums gives the values from the totals.
  void gauge_sums(std::vector<double>& sums) {
    static_assert(!Exec::kOnDevice, "the ranks sum the gauges on the host");
    sums.assign(gauge_sum_offsets_.empty() ? 0 : gauge_sum_offsets_.back(), 0.0);
    if (gauge_count_ == 0) return;
    with_scene_kernel([&](const auto& kernel) {
      const SphParameters p = fluid_.params;
      const GridGeometry grid = fluid_.grid;
      const GaugeFields fields{counted_fluid(fluid_.fluid_view()), fluid_.velocity.data(),
                               fluid_.density.data(), fluid_.pressure.data()};
      const GaugeProbe* probes = host_probes_.data();
      const std::uint32_t* offset = gauge_sum_offsets_.data();
      double* out = sums.data();
      fluid_.exec.for_each(gauge_count_, [=](std::uint32_t g) {
        surge::gauge_sums(kernel, p, grid, fields, probes[g], out + offset[g]);
      });
    });
    for (std::size_t g = 0; g < host_probes_.size(); ++g) {
      if (host_probes_[g].kind != GaugeKind::force) continue;
      const double* force = fluid_.solids.fluid_force_sums(host_probes_[g].solid);
      std::copy(force, force + kForceGaugeValues, sums.begin() + gauge_sum_offsets_[g]);
    }
  }
  // A body gauge reads the body's state, which every rank holds whole (rank_hooks.h).
  void gauges_from_sums(const std::vector<double>& sums, std::vector<float>& values) {
    static_assert(!Exec::kOnDevice, "the ranks sum the gauges on the host");
    values.assign(gauge_values_count_, 0.0f);
    for (std::size_t g = 0; g < host_probes_.size(); ++g) {
      const GaugeProbe& probe = host_probes_[g];
      gauge_from_sums(probe, fluid_.params.spacing, sums.data() + gauge_sum_offsets_[g], values.data());
      if (probe.kind == GaugeKind::body)
        fluid_.solids.sample_body(probe.solid, values.data() + probe.first_value);
    }
  }

  void sample_gauges(std::vector<float>& values) {
    sample_gauges(values, Exec::kOnDevice ? GaugeThreads::one_a_sum : GaugeThreads::one_a_gauge);
  }
  // How the gauges' sums are spread over threads (gauges.h): one a gauge, the scan stopping at the water (the
  // CPU's way: less work where the threads are few), or one a sum and then one a gauge (the GPU's way: one
  // thread's scan of a level gauge took thousands of dependent loads). Both give the same values, bit for
  // bit; a test holds them to it on the CPU.
  enum class GaugeThreads { one_a_gauge, one_a_sum };
  void sample_gauges(std::vector<float>& values, GaugeThreads threads) {
    if (gauge_count_ == 0) {
      values.clear();
      return;
    }
    with_scene_kernel([&](const auto& kernel) { sample_gauges(kernel, threads); });
    fluid_.exec.download(values, gauge_values_, gauge_values_count_, "gauge values");
  }
  template <typename Kernel>
  void sample_gauges(const Kernel& kernel, GaugeThreads threads) {
    const SphParameters p = fluid_.params;
    const GridGeometry grid = fluid_.grid;
    GaugeFields fields{fluid_.fluid_view(), fluid_.velocity.data(), fluid_.density.data(),
                       fluid_.pressure.data()};
    fields.fluid.list_start = nullptr;  // the gauge points are not particles: through the cells
    fields.fluid.list = nullptr;
    fields.fluid.list_gradient = nullptr;
    const GaugeProbe* probes = gauge_probes_.data();
    float* values = gauge_values_.data();
    if (threads == GaugeThreads::one_a_sum) {
      double* sums = gauge_slot_sums_.data();
      const std::uint32_t stride = gauge_sum_stride_;
      fluid_.exec.for_each(gauge_count_ * stride, [=] SURGE_LAMBDA(std::uint32_t slot) {
        const std::uint32_t g = slot / stride;
        gauge_slot_sums(kernel, p, grid, fields, probes[g], slot - g * stride,
                        sums + std::size_t(g) * stride);
      });
      fluid_.exec.for_each(gauge_count_, [=] SURGE_LAMBDA(std::uint32_t g) {
        const GaugeProbe probe = probes[g];
        if (probe.kind == GaugeKind::force || probe.kind == GaugeKind::body) return;  // the solids' (below)
        gauge_from_sums(probe, p.spacing, sums + std::size_t(g) * stride, values);
      });
    } else {
      fluid_.exec.for_each(gauge_count_, [=] SURGE_LAMBDA(std::uint32_t g) {
        sample_gauge(kernel, p, grid, fields, probes[g], values);
      });
    }
    // Force and body gauges read the solids' sums of the last step, which every solver makes with its own
    // reaction to its wall terms (solid_bodies.h).
    for (const GaugeProbe& probe : host_probes_) {
      if (probe.kind == GaugeKind::force) fluid_.solids.sample_force(probe.solid, values + probe.first_value);
      if (probe.kind == GaugeKind::body) fluid_.solids.sample_body(probe.solid, values + probe.first_value);
    }
  }

 protected:
  // Runs `step(kernel)` with the scene's smoothing kernel (sim/sph/kernels.h).
  template <typename Step>
  void with_scene_kernel(Step&& step) {
    with_kernel(fluid_.params.kernel, fluid_.params.support, [&](const auto& kernel) {
      step(kernel);
      return 0;
    });
  }

  FluidState<Exec> fluid_;
  std::size_t static_count_;
  std::vector<GaugeProbe> host_probes_;
  std::vector<std::uint32_t> gauge_sum_offsets_;  // on ranks: where each gauge's sums start, then the total
  typename Exec::template Buffer<GaugeProbe> gauge_probes_;
  typename Exec::template Buffer<float> gauge_values_;
  typename Exec::template Buffer<double> gauge_slot_sums_;  // gauge g's sums at g * gauge_sum_stride_
  std::uint32_t gauge_count_ = 0, gauge_values_count_ = 0, gauge_sum_stride_ = 0;
  RankHooks ranks_;
};

// A solver without a physical pressure field (PBF: kPressureGauges false) says so, std::invalid_argument;
// the scene check names the gauge's line.
template <typename Solver>
void refuse_unmeasurable_gauges(const std::vector<GaugeProbe>& probes) {
  if constexpr (requires { Solver::kPressureGauges; }) {
    for (const GaugeProbe& probe : probes)
      if (!Solver::kPressureGauges && probe.kind == GaugeKind::pressure)
        throw std::invalid_argument("this solver has no physical pressure: no pressure gauges");
  }
}

// The parameters of the incompressible solvers (DFSPH, PBF): the fluid keys the solver uses (the weakly
// compressible ones, such as the equation of state and the artificial viscosity, are WCSPH's only), then
// the solver's own.
template <typename Settings>
std::vector<NamedValue> incompressible_parameters(SolverKind solver, const SphParameters& fluid,
                                                  const Settings& settings) {
  std::vector<NamedValue> all = describe_parameters(fluid, solver);
  for (NamedValue& value : describe_parameters(settings)) all.push_back(std::move(value));
  return all;
}
template <typename Settings>
std::vector<LiveParameter> incompressible_live_parameters(const Settings& settings) {
  std::vector<LiveParameter> all = live_incompressible_parameters();
  for (const LiveParameter& p : live_parameters(settings)) all.push_back(p);
  return all;
}
// Applies one of incompressible_live_parameters(); false for another name.
template <typename Settings>
bool set_incompressible_parameter(SphParameters& fluid, Settings& settings, std::string_view name,
                                  const ParameterValue& value) {
  return set_live_incompressible_parameter(fluid, name, value) || set_live_parameter(settings, name, value);
}

}  // namespace surge
