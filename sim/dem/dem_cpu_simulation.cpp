// The granular solver's CPU backend: the DEM step as OpenMP loops over sim/dem/dem_physics.h. It is the
// reference the GPU backend is tested against.
//
// One step: sort the grains by cell (index), contact accelerations (forces), symplectic Euler and the
// domain check (integration). The "density" and "other" stages do nothing for grains and read 0.
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "sim/backend/stage_clock.h"
#include "sim/dem/dem_physics.h"
#include "sim/dem/dem_simulation.h"
#include "sim/index/cell_index_cpu.h"

namespace surge {

namespace {

class DemCpuSimulation final : public Simulation {
 public:
  explicit DemCpuSimulation(const DemSetup& setup)
      : params_(setup.params),
        grid_(setup.grid),
        position_(setup.grains.position),
        velocity_(setup.grains.velocity),
        id_(setup.grains.id),
        fixed_(setup.fixed),
        fixed_cell_start_(setup.fixed_cell_start) {
    acceleration_.assign(position_.size(), Vec4f{0, 0, 0, 0});
    status_.dt_s = params_.dt;
  }

  std::string backend_name() const override {
    return "cpu (" + std::to_string(omp_get_max_threads()) + " OpenMP threads)";
  }
  std::size_t fluid_count() const override { return position_.size(); }
  std::size_t boundary_count() const override { return fixed_.size(); }

  void step() override {
    if (status_.instability != Instability::none) return;
    run_timed(times_, Stage::index, [&] { sort_by_cell(); });
    run_timed(times_, Stage::forces, [&] { compute_accelerations(); });
    run_timed(times_, Stage::integration, [&] { integrate(); });
    times_.steps += 1;
  }

  StepStatus status() override { return status_; }

  void download(ParticleFrame& frame) override {
    frame.position = position_;
    frame.velocity = velocity_;
    frame.id = id_;
    frame.resize(position_.size());
    for (std::size_t i = 0; i < position_.size(); ++i) {
      const float r = position_[i].w;
      frame.density[i] = velocity_[i].w / (4.0f / 3.0f * 3.14159265f * r * r * r);
      frame.pressure[i] = acceleration_[i].w;
    }
    frame.time_s = status_.time_s;
    frame.step = status_.step;
  }

  StageTimes stage_times() override { return times_; }
  std::vector<NamedValue> parameters() const override { return describe_parameters(params_); }
  // The contact and integration kernels take params_ by value at each launch: the next step uses the edit.
  std::vector<LiveParameter> live_parameters() const override { return surge::live_parameters(params_); }
  void set_parameter(std::string_view name, const ParameterValue& value) override {
    if (!set_live_parameter(params_, name, value)) refuse_parameter(*this, name);
  }
  void reset_timers() override { times_ = StageTimes{}; }

 private:
  void sort_by_cell() {
    index_.build(grid_, position_);
    const auto& order = index_.sorted_order();
    gather_in_order(position_, order, vec4_scratch_);
    gather_in_order(velocity_, order, vec4_scratch_);
    gather_in_order(id_, order, id_scratch_);
  }

  void compute_accelerations() {
    const CellIndexView grains{position_.data(), index_.cell_start().data()};
    const CellIndexView fixed{fixed_.data(), fixed_.empty() ? nullptr : fixed_cell_start_.data()};
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < std::int64_t(position_.size()); ++i)
      acceleration_[i] =
          grain_acceleration(params_, grid_, grains, velocity_.data(), fixed, std::uint32_t(i));
  }

  void integrate() {
    std::int64_t first_bad = -1;
    int first_code = 0;
    float max_speed2 = 0.0f;
#pragma omp parallel for schedule(static) reduction(max : max_speed2)
    for (std::int64_t i = 0; i < std::int64_t(position_.size()); ++i) {
      integrate_grain(params_, acceleration_[i], position_[i], velocity_[i]);
      max_speed2 = std::max(max_speed2, length_squared(xyz(velocity_[i])));
      if (const int code = check_grain(params_, position_[i], velocity_[i])) {
#pragma omp critical(surge_dem_first_bad)
        if (first_bad < 0 || id_[i] < id_[first_bad]) {
          first_bad = i;
          first_code = code;
        }
      }
    }
    status_.step += 1;
    status_.time_s += params_.dt;
    status_.max_speed = std::sqrt(max_speed2);
    if (first_bad >= 0) {
      const std::size_t i = std::size_t(first_bad);
      status_.instability = Instability(first_code);
      status_.remedy = kDemRemedy;
      status_.bad_step = status_.step;
      status_.bad_particle = id_[i];
      status_.bad_position = xyz(position_[i]);
      status_.bad_velocity = xyz(velocity_[i]);
      status_.bad_acceleration = xyz(acceleration_[i]);
    }
  }

  DemParameters params_;
  GridGeometry grid_;
  std::vector<Vec4f> position_, velocity_, acceleration_;
  std::vector<std::uint32_t> id_;
  std::vector<Vec4f> fixed_;
  std::vector<std::uint32_t> fixed_cell_start_;
  CpuCellIndex index_;
  std::vector<Vec4f> vec4_scratch_;
  std::vector<std::uint32_t> id_scratch_;
  StepStatus status_;
  StageTimes times_;
};

}  // namespace

std::unique_ptr<Simulation> make_dem_cpu_simulation(const DemSetup& setup) {
  return std::make_unique<DemCpuSimulation>(setup);
}

}  // namespace surge
