// The CPU backend: the WCSPH step as OpenMP loops over the single-source physics in
// sim/sph/wcsph_physics.h. It is also the reference the GPU backend is tested against.
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "sim/backend/simulation.h"
#include "sim/core/stage_times.h"
#include "sim/index/cell_index_cpu.h"
#include "sim/sph/wcsph_physics.h"

namespace surge {

namespace {

class CpuSimulation final : public Simulation {
 public:
  explicit CpuSimulation(const SphSetup& setup)
      : params_(setup.params),
        grid_(setup.grid),
        position_(setup.fluid.position),
        velocity_(setup.fluid.velocity),
        id_(setup.fluid.id),
        density_(setup.fluid.density),
        pressure_(setup.fluid.pressure),
        boundary_(setup.boundary),
        boundary_cell_start_(setup.boundary_cell_start),
        emitter_(setup.emitter),
        capacity_(setup.capacity()) {
    // Reserved for the emitter's particles: the arrays grow in place as layers enter.
    for (auto* vec4s : {&position_, &velocity_, &vec4_scratch_}) vec4s->reserve(capacity_);
    for (auto* floats : {&density_, &pressure_}) floats->reserve(capacity_);
    id_.reserve(capacity_);
    id_scratch_.reserve(capacity_);
    acceleration_.reserve(capacity_);
    acceleration_.resize(position_.size());
    schedule_.next_id = std::uint32_t(position_.size());
    if (emitter_.present) schedule_.next_layer = first_layer_from(emitter_.nozzle, setup.fluid.time_s);
    status_.dt_s = params_.dt_max;
    status_.time_s = setup.fluid.time_s;
    status_.step = setup.fluid.step;
  }

  std::string backend_name() const override {
    return "cpu (" + std::to_string(omp_get_max_threads()) + " OpenMP threads)";
  }
  std::size_t fluid_count() const override { return position_.size(); }
  std::size_t capacity() const override { return capacity_; }
  bool has_emitter() const override { return emitter_.present; }
  bool set_emitter_enabled(bool enabled) override {
    schedule_.enabled = enabled;
    return emitter_.present;
  }
  bool emitter_enabled() const override { return emitter_.present && schedule_.enabled; }
  std::size_t boundary_count() const override { return boundary_.size(); }

  void step() override {
    if (status_.instability != Instability::none) return;
    run_timed(times_, Stage::other, [&] { emit(); });
    run_timed(times_, Stage::index, [&] { sort_by_cell(); });
    with_kernel(params_.kernel, params_.support, [&](auto kernel) {
      run_timed(times_, Stage::density, [&] { compute_densities(kernel); });
      run_timed(times_, Stage::forces, [&] { compute_accelerations(kernel); });
      return 0;
    });
    run_timed(times_, Stage::other, [&] { choose_time_step(); });
    if (status_.instability != Instability::none) return;
    run_timed(times_, Stage::integration, [&] { integrate(); });
    times_.steps += 1;
  }

  StepStatus status() override { return status_; }

  void download(ParticleFrame& frame) override {
    frame.position = position_;
    frame.velocity = velocity_;
    frame.density = density_;
    frame.pressure = pressure_;
    frame.id = id_;
    frame.time_s = status_.time_s;
    frame.step = status_.step;
  }

  StageTimes stage_times() override { return times_; }
  std::vector<NamedValue> parameters() const override { return describe_parameters(params_); }
  // The kernels take params_ by value at each launch, so the next step sees the new hand.
  bool set_stirring(const Stirring& stirring) override {
    params_.stirring = stirring;
    return true;
  }
  std::vector<LiveParameter> live_parameters() const override { return surge::live_parameters(params_); }
  void set_parameter(std::string_view name, const ParameterValue& value) override {
    if (!set_live_parameter(params_, name, value)) refuse_parameter(*this, name);
  }
  void reset_timers() override { times_ = StageTimes{}; }

 private:
  // A layer from the nozzle (sim/sph/emitter.h), appended after the active particles.
  void emit() {
    const long long layer = layer_to_emit(emitter_, schedule_, status_.time_s, position_.size(), capacity_);
    status_.emitter_full = schedule_.full;
    if (layer < 0) return;
    schedule_.next_layer = layer + 1;
    const EmitterNozzle& nozzle = emitter_.nozzle;
    const float advance = layer_advance(nozzle, layer, status_.time_s);
    for (const Vec4f& x : position_)
      if (in_layer_slot(nozzle, xyz(x), advance)) return;  // fluid still in the slot: skip this layer
    for (const Vec4f& offset : emitter_.layer) {
      Vec4f x, v;
      place_emitted_particle(nozzle, offset, advance, x, v);
      position_.push_back(x);
      velocity_.push_back(v);
      density_.push_back(params_.rest_density);
      pressure_.push_back(0.0f);
      id_.push_back(schedule_.next_id++);
    }
    acceleration_.resize(position_.size());
  }

  void sort_by_cell() {
    index_.build(grid_, position_);
    const auto& order = index_.sorted_order();
    gather_in_order(position_, order, vec4_scratch_);
    gather_in_order(velocity_, order, vec4_scratch_);
    gather_in_order(id_, order, id_scratch_);
  }

  CellIndexView fluid_view() const { return {position_.data(), index_.cell_start().data()}; }
  CellIndexView boundary_view() const { return {boundary_.data(), boundary_cell_start_.data()}; }

  template <typename Kernel>
  void compute_densities(const Kernel& kernel) {
    const CellIndexView fluid = fluid_view(), boundary = boundary_view();
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < std::int64_t(position_.size()); ++i) {
      density_[i] = compute_density(kernel, params_, grid_, fluid, boundary, xyz(position_[i]));
      pressure_[i] = tait_pressure(params_, density_[i]);
    }
  }

  template <typename Kernel>
  void compute_accelerations(const Kernel& kernel) {
    const FluidFields fluid{fluid_view(), velocity_.data(), density_.data(), pressure_.data()};
    const CellIndexView boundary = boundary_view();
    float max_speed2 = 0.0f, max_acceleration2 = 0.0f;
#pragma omp parallel for schedule(static) reduction(max : max_speed2, max_acceleration2)
    for (std::int64_t i = 0; i < std::int64_t(position_.size()); ++i) {
      acceleration_[i] = compute_acceleration(kernel, params_, grid_, fluid, boundary, std::uint32_t(i));
      max_speed2 = std::max(max_speed2, length_squared(xyz(velocity_[i])));
      max_acceleration2 = std::max(max_acceleration2, length_squared(acceleration_[i].acceleration));
    }
    max_speed_ = std::sqrt(max_speed2);
    max_acceleration_ = std::sqrt(max_acceleration2);
  }

  void choose_time_step() {
    status_.dt_s = adaptive_time_step(params_, max_speed_, max_acceleration_);
    status_.max_speed = max_speed_;
    if (status_.dt_s < params_.dt_min) report(Instability::dt_collapse, 0);
  }

  void integrate() {
    const float dt = status_.dt_s;
    std::int64_t first_bad = -1;
    int first_code = 0;
    const bool guide = nozzle_guides(emitter_, schedule_, status_.time_s);
    const EmitterNozzle& nozzle = emitter_.nozzle;
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < std::int64_t(position_.size()); ++i) {
      if (guide && in_nozzle_guide(nozzle, xyz(position_[i]), id_[i])) {
        acceleration_[i] = ParticleAcceleration{};
        velocity_[i] = nozzle_velocity(nozzle);
      }
      integrate_particle(dt, acceleration_[i], position_[i], velocity_[i]);
      if (const int code = check_particle(params_, position_[i], velocity_[i])) {
#pragma omp critical(surge_first_bad)
        if (first_bad < 0 || id_[i] < id_[first_bad]) {
          first_bad = i;
          first_code = code;
        }
      }
    }
    status_.step += 1;
    status_.time_s += dt;
    if (first_bad >= 0 && status_.instability == Instability::none)
      report(Instability(first_code), std::size_t(first_bad));
  }

  // Records the first instability; for a collapsed step, the particle with the largest acceleration.
  void report(Instability what, std::size_t i) {
    if (what == Instability::dt_collapse) {
      float largest = -1.0f;
      for (std::size_t k = 0; k < acceleration_.size(); ++k)
        if (const float a2 = length_squared(acceleration_[k].acceleration); a2 > largest) {
          largest = a2;
          i = k;
        }
    }
    status_.instability = what;
    status_.bad_step = status_.step;
    if (i < position_.size()) {
      status_.bad_particle = id_[i];
      status_.bad_position = xyz(position_[i]);
      status_.bad_velocity = xyz(velocity_[i]);
      status_.bad_acceleration = acceleration_[i].acceleration;
    }
  }

  SphParameters params_;
  GridGeometry grid_;
  std::vector<Vec4f> position_, velocity_;
  std::vector<std::uint32_t> id_;
  std::vector<float> density_, pressure_;
  std::vector<ParticleAcceleration> acceleration_;
  std::vector<Vec4f> boundary_;
  std::vector<std::uint32_t> boundary_cell_start_;
  CpuCellIndex index_;
  std::vector<Vec4f> vec4_scratch_;
  std::vector<std::uint32_t> id_scratch_;
  float max_speed_ = 0.0f, max_acceleration_ = 0.0f;
  EmitterSetup emitter_;
  EmitterSchedule schedule_;
  std::size_t capacity_;
  StepStatus status_;
  StageTimes times_;
};

}  // namespace

std::unique_ptr<Simulation> make_cpu_simulation(const SphSetup& setup) {
  return std::make_unique<CpuSimulation>(setup);
}

}  // namespace surge
