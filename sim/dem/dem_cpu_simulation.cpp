// The granular solver's CPU backend: the DEM step as OpenMP loops over sim/dem/dem_physics.h. It is the
// reference the GPU backend is tested against.
//
// One step: sort the grains by cell (index), contact accelerations and the contact history (forces),
// symplectic Euler and the domain check (integration). The "density" and "other" stages do nothing for
// grains and read 0. The contact history is indexed by creation id (sim/dem/contact_history.h), so the
// sort does not move it; the spin is per grain and moves with the grain.
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "sim/core/stage_times.h"
#include "sim/dem/dem_physics.h"
#include "sim/dem/dem_simulation.h"
#include "sim/index/cell_index_cpu.h"

namespace surge {

namespace {

class DemCpuSimulation final : public DemSimulation {
 public:
  DemCpuSimulation(const DemSetup& setup, DemCpuOptions options)
      : options_(options),
        params_(setup.params),
        grid_(setup.grid),
        position_(setup.grains.position),
        velocity_(setup.grains.velocity),
        id_(setup.grains.id),
        fixed_(setup.fixed),
        fixed_cell_start_(setup.fixed_cell_start) {
    acceleration_.assign(position_.size(), Vec4f{0, 0, 0, 0});
    if (params_.rotation) {
      angular_velocity_ = setup.angular_velocity;
      if (angular_velocity_.empty()) angular_velocity_.assign(position_.size(), Vec4f{0, 0, 0, 0});
      angular_acceleration_.assign(position_.size(), Vec4f{0, 0, 0, 0});
    }
    if (params_.friction_model == FrictionModel::mindlin) {
      const ContactSlot empty{Vec3f{}, kNoPartner};
      history_ = setup.history;
      if (history_.empty()) history_.assign(position_.size() * params_.contact_slots, empty);
      next_history_.assign(history_.size(), empty);
    }
    status_.dt_s = params_.dt;
    status_.time_s = setup.grains.time_s;
    status_.step = setup.grains.step;
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

  std::vector<NamedValue> step_figures() override { return history_figures_; }

  void download_angular_velocity(std::vector<Vec4f>& angular_velocity) override {
    if (params_.rotation) {
      angular_velocity = angular_velocity_;
    } else {
      angular_velocity.assign(position_.size(), Vec4f{0, 0, 0, 0});
    }
  }
  void download_contact_history(std::vector<ContactSlot>& slots) override { slots = history_; }

 private:
  void sort_by_cell() {
    index_.build(grid_, position_);
    if (!options_.reorder) return;  // neighbours are read through sorted_order() instead
    const auto& order = index_.sorted_order();
    gather_in_order(position_, order, vec4_scratch_);
    gather_in_order(velocity_, order, vec4_scratch_);
    if (params_.rotation) gather_in_order(angular_velocity_, order, vec4_scratch_);
    gather_in_order(id_, order, id_scratch_);
  }

  void compute_accelerations() {
    DemGrainsView grains;
    grains.index = CellIndexView{position_.data(), index_.cell_start().data()};
    if (!options_.reorder) grains.index.sorted_order = index_.sorted_order().data();
    grains.velocity = velocity_.data();
    grains.angular_velocity = params_.rotation ? angular_velocity_.data() : nullptr;
    grains.id = id_.data();
    const CellIndexView fixed{fixed_.data(), fixed_.empty() ? nullptr : fixed_cell_start_.data()};
    ContactHistoryView history;
    if (!history_.empty()) history = {history_.data(), next_history_.data(), params_.contact_slots};
    const bool rotation = params_.rotation;
    const bool full_model = uses_spin_or_history(params_);
    std::uint64_t contacts = 0, overflow = 0;
    std::uint32_t most_contacts = 0;
#pragma omp parallel for schedule(static) reduction(+ : contacts, overflow) reduction(max : most_contacts)
    for (std::int64_t i = 0; i < std::int64_t(position_.size()); ++i) {
      const GrainContactResult result =
          full_model ? grain_contacts<true>(params_, grid_, grains, fixed, history, std::uint32_t(i))
                     : grain_contacts<false>(params_, grid_, grains, fixed, history, std::uint32_t(i));
      acceleration_[i] = result.acceleration;
      if (rotation) angular_acceleration_[i] = result.angular_acceleration;
      contacts += result.contacts;
      overflow += result.overflow;
      most_contacts = std::max(most_contacts, result.contacts);
    }
    if (history_.empty()) return;
    history_.swap(next_history_);
    overflow_total_ += overflow;
    history_figures_ =
        contact_history_figures(contacts, most_contacts, overflow, overflow_total_, params_.contact_slots);
  }

  void integrate() {
    std::int64_t first_bad = -1;
    int first_code = 0;
    float max_speed2 = 0.0f;
#pragma omp parallel for schedule(static) reduction(max : max_speed2)
    for (std::int64_t i = 0; i < std::int64_t(position_.size()); ++i) {
      integrate_grain(params_, acceleration_[i], position_[i], velocity_[i]);
      if (params_.rotation) integrate_grain_spin(params_, angular_acceleration_[i], angular_velocity_[i]);
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

  DemCpuOptions options_;
  DemParameters params_;
  GridGeometry grid_;
  std::vector<Vec4f> position_, velocity_, acceleration_;
  std::vector<Vec4f> angular_velocity_, angular_acceleration_;  // rotation only
  std::vector<ContactSlot> history_, next_history_;             // Mindlin friction only, by creation id
  std::uint64_t overflow_total_ = 0;
  std::vector<NamedValue> history_figures_;
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

std::unique_ptr<DemSimulation> make_dem_cpu_simulation(const DemSetup& setup, DemCpuOptions options) {
  return std::make_unique<DemCpuSimulation>(setup, options);
}

}  // namespace surge
