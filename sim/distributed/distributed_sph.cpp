#include "sim/distributed/distributed_sph.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cstring>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

#include "sim/distributed/rank_checkpoint.h"

namespace surge {

namespace {

using Clock = std::chrono::steady_clock;

// The sections of the solvers' archives (archive_state) that hold one entry per fluid particle, in the
// archive's order: a checkpoint on ranks holds every rank's owned particles in them, one rank after
// another. A name missing here shows at once: its section keeps one rank's count, which the loader refuses
// on any other rank.
constexpr std::array<std::string_view, 8> kParticleSections = {"fluid.position",
                                                               "fluid.velocity",
                                                               "fluid.id",
                                                               "fluid.density",
                                                               "fluid.pressure",
                                                               "dfsph.density_pressure_sum",
                                                               "dfsph.divergence_pressure_sum",
                                                               "wcsph.verlet_before"};
// The particle count in a solver's archive besides the sections' counts: FluidState's active count, and
// WCSPH's step state's copy of it.
void count_fluid(StateSection& section, std::uint64_t count) {
  if (section.name == "fluid.active")
    change_value<std::uint32_t>(section, [&](std::uint32_t& n) { n = std::uint32_t(count); });
  if (section.name == "wcsph.step_state")
    change_value<WcsphStepState>(section, [&](WcsphStepState& s) { s.active_count = std::uint32_t(count); });
}

}  // namespace

template <typename Solver>
DistributedSph<Solver>::DistributedSph(Communicator& comm, const SphSetup& setup, DistributedOptions options,
                                       [[maybe_unused]] const Settings& settings)
    : comm_(comm),
      options_(options),
      halo_width_(float(halo_supports<Solver>(setup.params)) * setup.params.support),
      exec_(ledger_) {
  if (options_.histogram_bins < 1) throw std::invalid_argument("the load balance needs at least one bin");
  const SphParameters& p = setup.params;
  slabs_ = first_slabs(p.domain_min, p.domain_max, setup.fluid.position, comm_.size(), options_);
  // The solver holds the whole setup's capacity (owned + halo never exceed all the particles), and before
  // its first step its arrays are the setup's, in the setup's order: DFSPH's warm-start sums (the
  // hydrostatic start) are read from there.
  if constexpr (std::is_same_v<Settings, NoSolverSettings>) {
    solver_ = std::make_unique<Solver>(exec_, setup);
  } else {
    solver_ = std::make_unique<Solver>(exec_, setup, settings);
  }
  const ParticleFrame& f = setup.fluid;
  for (std::size_t i = 0; i < f.size(); ++i) {
    if (slabs_.owner(component(f.position[i], slabs_.axis)) != comm_.rank()) continue;
    // A setup's density and pressure may be empty: summation density computes them in the first step.
    const float density = i < f.density.size() ? f.density[i] : p.rest_density;
    const float pressure = i < f.pressure.size() ? f.pressure[i] : 0.0f;
    Record record;
    static_cast<ParticleRecord&>(record) = {f.position[i], f.velocity[i], f.id[i], density, pressure};
    if constexpr (kDfsph) {
      record.density_pressure_sum = solver_->density_pressure_sum()[i];
      record.divergence_pressure_sum = solver_->divergence_pressure_sum()[i];
    }
    owned_.push_back(record);
  }
  global_count_ = (long long)(owned_.size());
  comm_.sum(std::span<long long>(&global_count_, 1));
  // By creation id: the setup's particles and those the emitter may create (ids from the setup's count on).
  std::size_t id_count = setup.capacity();
  for (std::uint32_t id : f.id) id_count = std::max(id_count, std::size_t(id) + 1);
  is_owned_.assign(id_count, 0);
  slot_of_id_.assign(is_owned_.size(), 0);
  if constexpr (kWcsph) {
    // No previous step yet (w = 0), as the solver starts: the first step is an Euler step.
    if (solver_->continuity_density()) verlet_before_by_id_.assign(is_owned_.size(), Vec4f{});
    solver_->set_maxima_hook([this](unsigned long long* maxima, const Vec3f* acceleration) {
      reduce_maxima(maxima, acceleration);
    });
    RankHooks hooks;  // WCSPH does not iterate: only the owned fluid's sums, and what each copy needs
    work_by_id_.assign(is_owned_.size(), kRankWhole);
    hooks.work_by_id = work_by_id_.data();
    hooks.owned_fluid = [this](const CellIndexView& all) { return owned_fluid(all); };
    hooks.sum_in_rank_order = [this](double* values, std::size_t count) { sum_in_rank_order(values, count); };
    solver_->set_rank_hooks(std::move(hooks));
  } else {
    solver_->set_rank_hooks(
        {.refresh_halo = [this](void* values, std::size_t value_bytes) { refresh_halo(values, value_bytes); },
         .owned_average = [this](const float* values) { return owned_average(values); },
         .owned_fluid = [this](const CellIndexView& all) { return owned_fluid(all); },
         .sum_in_rank_order = [this](double* values,
                                     std::size_t count) { sum_in_rank_order(values, count); }});
  }
  status_ = solver_->status();
}

template <typename Solver>
void DistributedSph<Solver>::step() {
  if (status_.instability != Instability::none) return;
  const Clock::time_point start = Clock::now();
  figures_.migration = {};
  if (rebalance_due(options_, steps_)) {
    rebalance_slabs(comm_, slabs_, owned_, options_.histogram_bins, figures_);
    figures_.migration = migrate();
  }
  emit_layer();
  halo_ = exchange_halo(comm_, slabs_, owned_, halo_width_, figures_.halo, halo_links_);
  halo_slots_found_ = false;
  load_solver();
  double exchange = seconds_since(start);

  hook_seconds_ = 0;
  figures_.refresh_bytes = 0;
  figures_.refreshes = 0;
  const Clock::time_point stepping = Clock::now();
  solver_->step();
  figures_.step_seconds = seconds_since(stepping) - hook_seconds_;
  exchange += hook_seconds_;

  const Clock::time_point after = Clock::now();
  keep_owned();
  add_exchange(figures_.migration, migrate());
  // The largest instability code over the ranks, and the largest speed of the owned particles, which DFSPH
  // and PBF choose their next time step from: as one process would from all of them
  // (FluidState::max_speed_or_infinity).
  status_ = solver_->status();
  float speed = 0.0f;
  if constexpr (!kWcsph) {
    for (const Record& record : owned_) speed = std::max(speed, sqrtf(length_squared(xyz(record.velocity))));
  }
  const float largest_speed = reduce_step_status(comm_, status_, speed);
  if constexpr (!kWcsph) {
    status_.max_speed = largest_speed;
    solver_->fluid().status.max_speed = status_.max_speed;
  }
  exchange += seconds_since(after);
  add_step_to_totals(figures_, exchange);
  ++steps_;
}

// The emitter on ranks: one process's decision (FluidState::emit), taken by every rank from global figures,
// and the layer's particles created by the ranks whose slabs they fall in. Every rank has the same clock
// and schedule, so each finds the same layer due; the slot is occupied if any rank's owned fluid is in it
// (one max over the ranks); the capacity is the whole run's, against the fluid of every rank. Every rank
// then places the whole layer, as one process does, and keeps the particles in its slab, with one process's
// creation ids (the schedule's next id onwards, the same on every rank). The solver is handed the schedule
// afterwards: its own emit finds the layer already taken (next_layer is past it) and does nothing, and its
// nozzle guide sees the same schedule as one process's.
template <typename Solver>
void DistributedSph<Solver>::emit_layer() {
  FluidState<CpuExecutor>& fluid = solver_->fluid();
  if (!fluid.emitter.present) return;
  EmitterSchedule& schedule = fluid.schedule;
  const EmitterSetup& emitter = fluid.emitter;
  const double time_s = solver_->status().time_s;
  const long long layer =
      layer_to_emit(emitter, schedule, time_s, std::size_t(global_count_), fluid.capacity);
  fluid.status.emitter_full = schedule.full;
  if (layer < 0) return;
  schedule.next_layer = layer + 1;
  const EmitterNozzle& nozzle = emitter.nozzle;
  const float advance = layer_advance(nozzle, layer, time_s);
  unsigned long long occupied[1] = {0};
  for (const Record& record : owned_)
    if (in_layer_slot(nozzle, xyz(record.position), advance)) occupied[0] = 1;
  comm_.max(occupied);
  if (occupied[0] != 0) return;  // fluid still in the slot: skip this layer
  for (std::uint32_t k = 0; k < nozzle.layer_size; ++k) {
    Record record;
    place_emitted_particle(nozzle, emitter.layer[k], advance, record.position, record.velocity);
    if (slabs_.owner(component(record.position, slabs_.axis)) != comm_.rank()) continue;
    record.id = schedule.next_id + k;
    record.density = fluid.params.rest_density;
    record.pressure = 0.0f;
    owned_.push_back(record);  // DFSPH's warm-start sums and the Verlet state start at zero, as one process's
  }
  schedule.next_id += nozzle.layer_size;
  global_count_ += nozzle.layer_size;
  // The next time step must see the jet's speed (DFSPH and PBF choose it from status.max_speed).
  if (fluid.status.max_speed < nozzle.speed) fluid.status.max_speed = nozzle.speed;
}

// Owned first, then the halo, into the solver's first slots; the solver sorts them by cell itself.
template <typename Solver>
void DistributedSph<Solver>::load_solver() {
  FluidState<CpuExecutor>& fluid = solver_->fluid();
  const std::size_t count = owned_.size() + halo_.size();
  if (count > fluid.capacity)
    throw std::logic_error("rank " + std::to_string(comm_.rank()) + " holds " + std::to_string(count) +
                           " particles, more than the " + std::to_string(fluid.capacity) + " there are");
  for (std::uint32_t i = 0; i < fluid.n; ++i) is_owned_[fluid.id[i]] = 0;  // the last step's owners
  std::size_t k = 0;
  const auto put = [&](const Record& record) {
    fluid.position[k] = record.position;
    fluid.velocity[k] = record.velocity;
    fluid.id[k] = record.id;
    fluid.density[k] = record.density;
    fluid.pressure[k] = record.pressure;
    if constexpr (kDfsph) {
      solver_->density_pressure_sum()[k] = record.density_pressure_sum;
      solver_->divergence_pressure_sum()[k] = record.divergence_pressure_sum;
    }
    ++k;
  };
  for (const Record& record : owned_) {
    is_owned_[record.id] = 1;
    put(record);
  }
  for (const Record& record : halo_) put(record);
  if constexpr (kWcsph) {
    // What each particle's step must compute (RankWork): the owned particles all of it; a copy within one
    // support of the slab its density (summation density), a copy farther out nothing.
    const float lo = slabs_.slab_min(comm_.rank()), hi = slabs_.slab_max(comm_.rank());
    const float support = fluid.params.support;
    for (const Record& record : owned_) work_by_id_[record.id] = kRankWhole;
    for (const Record& record : halo_) {
      const float x = component(record.position, slabs_.axis);
      const float beyond = x < lo ? lo - x : x - hi;
      work_by_id_[record.id] = beyond <= support ? kRankDensity : kRankNeighbourOnly;
    }
    if (!verlet_before_by_id_.empty()) {
      // The owned particles' previous step; the halo copies none (an Euler step, whose result is dropped).
      Vec4f* before = solver_->verlet_before().data();
      for (std::size_t i = 0; i < owned_.size(); ++i) before[i] = verlet_before_by_id_[owned_[i].id];
      for (std::size_t i = owned_.size(); i < count; ++i) before[i] = Vec4f{};
    }
  }
  fluid.n = std::uint32_t(count);
  fluid.pending = 0;
  if constexpr (kWcsph) solver_->host_step_state().active_count = std::uint32_t(count);
}

// The owned particles in the solver's (cell) order, with this step's results; the halo is dropped.
template <typename Solver>
void DistributedSph<Solver>::keep_owned() {
  FluidState<CpuExecutor>& fluid = solver_->fluid();
  owned_.clear();
  for (std::uint32_t i = 0; i < fluid.n; ++i) {
    const std::uint32_t id = fluid.id[i];
    if (is_owned_[id] == 0) continue;
    Record record;
    static_cast<ParticleRecord&>(record) = {fluid.position[i], fluid.velocity[i], id, fluid.density[i],
                                            fluid.pressure[i]};
    if constexpr (kDfsph) {
      record.density_pressure_sum = solver_->density_pressure_sum()[i];
      record.divergence_pressure_sum = solver_->divergence_pressure_sum()[i];
    }
    if constexpr (kWcsph) {
      if (!verlet_before_by_id_.empty()) verlet_before_by_id_[id] = solver_->verlet_before()[i];
    }
    owned_.push_back(record);
  }
  halo_.clear();
}

// The owned particles now in another rank's slab go to it; with continuity density each takes its Verlet
// state along, out of this rank's table and into the new owner's, by creation id.
template <typename Solver>
ExchangeCount DistributedSph<Solver>::migrate() {
  if (verlet_before_by_id_.empty()) return migrate_particles(comm_, slabs_, owned_);
  Vec4f* by_id = verlet_before_by_id_.data();
  const MigrantAttachment attachment{
      .bytes = sizeof(Vec4f),
      .pack = [=](std::uint32_t id, std::byte* to) { std::memcpy(to, by_id + id, sizeof(Vec4f)); },
      .unpack = [=](std::uint32_t id,
                    const std::byte* from) { std::memcpy(by_id + id, from, sizeof(Vec4f)); }};
  return migrate_particles(comm_, slabs_, owned_, attachment);
}

// The maxima of this rank's owned particles (a halo particle at the halo's edge has a cut neighbourhood and
// a wrong acceleration), then over every rank. The index riding in the acceleration's key names a particle
// of the rank whose maximum won; the others keep the value with index 0, so a time-step collapse reports
// some particle of theirs rather than read past their arrays.
template <typename Solver>
void DistributedSph<Solver>::reduce_maxima(unsigned long long* maxima, const Vec3f* acceleration) {
  const Clock::time_point start = Clock::now();
  const FluidState<CpuExecutor>& fluid = solver_->fluid();
  unsigned long long mine[2] = {0, 0};
  for (std::uint32_t i = 0; i < fluid.n; ++i) {
    if (is_owned_[fluid.id[i]] == 0) continue;
    const MaxKeys<2> keys = step_maxima(acceleration[i], fluid.velocity[i], i);
    mine[0] = std::max(mine[0], keys.key[0]);
    mine[1] = std::max(mine[1], keys.key[1]);
  }
  unsigned long long global[2] = {mine[0], mine[1]};
  comm_.max(global);
  maxima[0] = global[0] == mine[0] ? global[0] : (global[0] & ~0xffffffffull);
  maxima[1] = global[1];
  hook_seconds_ += seconds_since(start);
}

// The solver sorted owned + halo by cell at the start of its step and keeps that order until the step
// ends: the slots of the copies this rank sent and received, by rank, in the order they travelled.
template <typename Solver>
void DistributedSph<Solver>::find_halo_slots() {
  const FluidState<CpuExecutor>& fluid = solver_->fluid();
  for (std::uint32_t i = 0; i < fluid.n; ++i) slot_of_id_[fluid.id[i]] = i;
  const auto slots_of = [&](const std::vector<std::vector<std::uint32_t>>& ids_by_rank,
                            std::vector<std::vector<std::uint32_t>>& slots_by_rank) {
    slots_by_rank.resize(ids_by_rank.size());
    for (std::size_t r = 0; r < ids_by_rank.size(); ++r) {
      slots_by_rank[r].resize(ids_by_rank[r].size());
      for (std::size_t k = 0; k < ids_by_rank[r].size(); ++k)
        slots_by_rank[r][k] = slot_of_id_[ids_by_rank[r][k]];
    }
  };
  slots_of(halo_links_.sent_ids, send_slots_);
  slots_of(halo_links_.received_ids, receive_slots_);
  halo_slots_found_ = true;
}

// The owners' current values of an array to every rank holding copies: the values of the particles this
// rank sent as halo, in the order it sent them, and into the copies it received, in the order they came.
template <typename Solver>
void DistributedSph<Solver>::refresh_halo(void* values, std::size_t value_bytes) {
  const Clock::time_point start = Clock::now();
  if (!halo_slots_found_) find_halo_slots();
  std::byte* bytes = static_cast<std::byte*>(values);
  ByteBlocks to_rank(send_slots_.size());
  for (std::size_t r = 0; r < to_rank.size(); ++r) {
    to_rank[r].resize(send_slots_[r].size() * value_bytes);
    for (std::size_t k = 0; k < send_slots_[r].size(); ++k)
      std::memcpy(to_rank[r].data() + k * value_bytes, bytes + std::size_t(send_slots_[r][k]) * value_bytes,
                  value_bytes);
    figures_.refresh_bytes += to_rank[r].size();
  }
  // Each rank knows how many copies it holds of each other rank's particles: the values alone travel.
  ByteBlocks received(receive_slots_.size());
  for (std::size_t r = 0; r < received.size(); ++r)
    received[r].resize(receive_slots_[r].size() * value_bytes);
  comm_.exchange_known_sizes(to_rank, received);
  for (std::size_t r = 0; r < received.size(); ++r) {
    for (std::size_t k = 0; k < receive_slots_[r].size(); ++k)
      std::memcpy(bytes + std::size_t(receive_slots_[r][k]) * value_bytes,
                  received[r].data() + k * value_bytes, value_bytes);
  }
  ++figures_.refreshes;
  hook_seconds_ += seconds_since(start);
}

// Through the executor's own sum (in double), the halo's entries counted as zero: on one rank exactly one
// process's sum; on several, the ranks' partial sums differ from one process's only by double rounding
// (about 1e-16 relative), far below the float rounding of the values themselves.
template <typename Solver>
double DistributedSph<Solver>::owned_average(const float* values) {
  const Clock::time_point start = Clock::now();
  const FluidState<CpuExecutor>& fluid = solver_->fluid();
  const std::uint32_t* id = fluid.id.data();
  const std::uint8_t* is_owned = is_owned_.data();
  double total = exec_.sum(fluid.n, [=](std::uint32_t i) { return is_owned[id[i]] != 0 ? values[i] : 0.0f; });
  comm_.sum(std::span<double>(&total, 1));
  hook_seconds_ += seconds_since(start);
  return total / double(global_count_);
}

// Every rank's values to every rank (an all-gather through the all-to-all), then added in rank order: every
// rank adds the same numbers in the same order and gets the same bits (a floating body's force,
// solid_bodies.h). The first rank's values start the sum, so that one rank returns its values untouched.
template <typename Solver>
void DistributedSph<Solver>::sum_in_rank_order(double* values, std::size_t count) {
  const Clock::time_point start = Clock::now();
  const std::size_t bytes = count * sizeof(double);
  ByteBlocks to_rank(std::size_t(comm_.size()), std::vector<std::byte>(bytes));
  for (std::vector<std::byte>& block : to_rank)
    if (bytes > 0) std::memcpy(block.data(), values, bytes);
  const ByteBlocks received = comm_.all_to_all(to_rank);
  std::vector<double> part(count);
  for (std::size_t r = 0; r < received.size(); ++r) {
    if (received[r].size() != bytes)
      throw std::logic_error("rank " + std::to_string(comm_.rank()) + " received " +
                             std::to_string(received[r].size()) + " bytes of a rank sum from rank " +
                             std::to_string(r) + " for " + std::to_string(count) + " values");
    if (bytes > 0) std::memcpy(part.data(), received[r].data(), bytes);
    for (std::size_t k = 0; k < count; ++k) values[k] = r == 0 ? part[k] : values[k] + part[k];
  }
  figures_.refresh_bytes += bytes * (received.size() - 1);
  hook_seconds_ += seconds_since(start);
}

// Built at every call, one pass over the cells and the particles: a solver may sort again within its step
// (PBF's iterations move the particles), and the view is used at once.
template <typename Solver>
CellIndexView DistributedSph<Solver>::owned_fluid(const CellIndexView& all) {
  const FluidState<CpuExecutor>& fluid = solver_->fluid();
  const std::uint32_t cells = fluid.grid.cell_count();
  owned_cell_start_.resize(std::size_t(cells) + 1);
  owned_order_.clear();
  for (std::uint32_t c = 0; c < cells; ++c) {
    owned_cell_start_[c] = std::uint32_t(owned_order_.size());
    for (std::uint32_t k = all.cell_start[c]; k < all.cell_start[c + 1]; ++k) {
      const std::uint32_t slot = all.sorted_order == nullptr ? k : all.sorted_order[k];
      if (is_owned_[fluid.id[slot]] != 0) owned_order_.push_back(slot);
    }
  }
  owned_cell_start_[cells] = std::uint32_t(owned_order_.size());
  CellIndexView owned = all;
  owned.cell_start = owned_cell_start_.data();
  owned.sorted_order = owned_order_.data();
  owned.list_start = nullptr;  // the lists name halo neighbours too: through the cells
  owned.list = nullptr;
  owned.list_gradient = nullptr;
  return owned;
}

template <typename Solver>
bool DistributedSph<Solver>::set_gauges(const std::vector<GaugeProbe>& probes) {
  refuse_unmeasurable_gauges<Solver>(probes);
  solver_->set_gauges(probes);
  return true;
}

template <typename Solver>
void DistributedSph<Solver>::sample_gauges(std::vector<float>& values) {
  std::vector<double> sums;
  solver_->gauge_sums(sums);
  comm_.sum(std::span<double>(sums));
  solver_->gauges_from_sums(sums, values);
}

template <typename Solver>
std::vector<BodyState> DistributedSph<Solver>::body_states() {
  return solver_->fluid().solids.download_states();
}

// This rank's owned particles, in their order, as the particle sections of a solver's archive.
template <typename Solver>
SolverState DistributedSph<Solver>::owned_particle_sections() const {
  const std::size_t n = owned_.size();
  std::vector<Vec4f> position(n), velocity(n);
  std::vector<std::uint32_t> id(n);
  std::vector<float> density(n), pressure(n);
  for (std::size_t k = 0; k < n; ++k) {
    position[k] = owned_[k].position;
    velocity[k] = owned_[k].velocity;
    id[k] = owned_[k].id;
    density[k] = owned_[k].density;
    pressure[k] = owned_[k].pressure;
  }
  SolverState state;
  add_section(state, "fluid.position", position.data(), n);
  add_section(state, "fluid.velocity", velocity.data(), n);
  add_section(state, "fluid.id", id.data(), n);
  add_section(state, "fluid.density", density.data(), n);
  add_section(state, "fluid.pressure", pressure.data(), n);
  if constexpr (kDfsph) {
    std::vector<float> density_sum(n), divergence_sum(n);
    for (std::size_t k = 0; k < n; ++k) {
      density_sum[k] = owned_[k].density_pressure_sum;
      divergence_sum[k] = owned_[k].divergence_pressure_sum;
    }
    add_section(state, "dfsph.density_pressure_sum", density_sum.data(), n);
    add_section(state, "dfsph.divergence_pressure_sum", divergence_sum.data(), n);
  }
  if constexpr (kWcsph) {
    if (!verlet_before_by_id_.empty()) {
      std::vector<Vec4f> before(n);
      for (std::size_t k = 0; k < n; ++k) before[k] = verlet_before_by_id_[owned_[k].id];
      add_section(state, "wcsph.verlet_before", before.data(), n);
    }
  }
  return state;
}

// Rank 0 archives its solver as one process would (the clock, the emitter's schedule, the solids, the step
// state: the same bits on every rank) and puts every rank's owned particles in place of its own halo and
// owned ones, so the file is a one-process checkpoint with the ranks' layout after it.
template <typename Solver>
bool DistributedSph<Solver>::gather_state(SolverState& state) {
  state.sections.clear();
  if (comm_.rank() == 0) {
    StateSaver<CpuExecutor> saver(exec_, state);
    solver_->archive_state(saver);
  }
  gather_rank_state(comm_, owned_particle_sections(), owned_.size(), slabs_, kParticleSections, count_fluid,
                    state);
  return true;
}

template <typename Solver>
void DistributedSph<Solver>::restore_state(const SolverState& state) {
  const SphParameters& p = solver_->fluid().params;
  const SolverState mine = take_rank_state(comm_, state, "fluid.position", kParticleSections, count_fluid,
                                           p.domain_min, p.domain_max, options_, slabs_);
  StateLoader<CpuExecutor> loader(exec_, mine);
  solver_->archive_state(loader);
  loader.finish();

  // The owned records from the solver's arrays, which hold them in the checkpoint's order.
  FluidState<CpuExecutor>& fluid = solver_->fluid();
  std::fill(is_owned_.begin(), is_owned_.end(), std::uint8_t{0});
  if (!verlet_before_by_id_.empty())
    std::fill(verlet_before_by_id_.begin(), verlet_before_by_id_.end(), Vec4f{});
  owned_.clear();
  halo_.clear();
  for (std::uint32_t i = 0; i < fluid.n; ++i) {
    if (fluid.id[i] >= is_owned_.size())
      throw StateMismatch("checkpoint particle id " + std::to_string(fluid.id[i]) +
                          " is beyond this setup's");
    Record record;
    static_cast<ParticleRecord&>(record) = {fluid.position[i], fluid.velocity[i], fluid.id[i],
                                            fluid.density[i], fluid.pressure[i]};
    if constexpr (kDfsph) {
      record.density_pressure_sum = solver_->density_pressure_sum()[i];
      record.divergence_pressure_sum = solver_->divergence_pressure_sum()[i];
    }
    if constexpr (kWcsph) {
      if (!verlet_before_by_id_.empty()) verlet_before_by_id_[fluid.id[i]] = solver_->verlet_before()[i];
    }
    owned_.push_back(record);
  }
  global_count_ = (long long)(find_section(state, "fluid.position")->count);  // no collective: see the header
  halo_slots_found_ = false;
  figures_ = {};
  status_ = solver_->status();
  steps_ = status_.step;
}

template <typename Solver>
ParticleFrame DistributedSph<Solver>::owned_frame() const {
  ParticleFrame frame;
  frame.resize(owned_.size());
  for (std::size_t k = 0; k < owned_.size(); ++k) {
    frame.position[k] = owned_[k].position;
    frame.velocity[k] = owned_[k].velocity;
    frame.id[k] = owned_[k].id;
    frame.density[k] = owned_[k].density;
    frame.pressure[k] = owned_[k].pressure;
  }
  frame.time_s = status_.time_s;
  frame.step = status_.step;
  return frame;
}

template class DistributedSph<WcsphSolver<CpuExecutor>>;
template class DistributedSph<DfsphSolver<CpuExecutor>>;
template class DistributedSph<PbfSolver<CpuExecutor>>;

}  // namespace surge
