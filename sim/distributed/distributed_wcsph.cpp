#include "sim/distributed/distributed_wcsph.h"

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <string>

namespace surge {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

void refuse_unshared_features(const SphSetup& setup) {
  const auto refuse = [](const std::string& feature) {
    throw std::invalid_argument(feature + " cannot run over several ranks yet (docs/multi-rank.md): run it " +
                                "as one process");
  };
  if (setup.emitter.present) refuse("an [[emitter]]");
  if (setup.solids.any_moving()) refuse("a moving or floating [[solid]]");
  if (setup.params.continuity_density) refuse("continuity density (density = \"continuity\")");
}

}  // namespace

DistributedWcsph::DistributedWcsph(Communicator& comm, const SphSetup& setup, DistributedOptions options)
    : comm_(comm), options_(options), halo_width_(2.0f * setup.params.support), exec_(ledger_) {
  refuse_unshared_features(setup);
  if (options_.histogram_bins < 1) throw std::invalid_argument("the load balance needs at least one bin");
  const SphParameters& p = setup.params;
  slabs_.axis = longest_axis(p.domain_min, p.domain_max);
  slabs_.lo = component(p.domain_min, slabs_.axis);
  slabs_.hi = component(p.domain_max, slabs_.axis);
  // Every rank has the whole setup: the first cuts need no communication, and every rank computes the same.
  if (options_.initial_cuts == InitialCuts::even) {
    slabs_.cuts = even_cuts(slabs_.lo, slabs_.hi, comm_.size());
  } else {
    const std::vector<long long> counts =
        axis_histogram(setup.fluid.position, slabs_.axis, slabs_.lo, slabs_.hi, options_.histogram_bins);
    slabs_.cuts = balanced_cuts(counts, slabs_.lo, slabs_.hi, comm_.size());
  }
  const ParticleFrame& f = setup.fluid;
  for (std::size_t i = 0; i < f.size(); ++i) {
    if (slabs_.owner(component(f.position[i], slabs_.axis)) != comm_.rank()) continue;
    // A setup's density and pressure may be empty: summation density computes them in the first step.
    const float density = i < f.density.size() ? f.density[i] : p.rest_density;
    const float pressure = i < f.pressure.size() ? f.pressure[i] : 0.0f;
    owned_.push_back({f.position[i], f.velocity[i], f.id[i], density, pressure});
  }
  std::uint32_t max_id = 0;
  for (std::uint32_t id : f.id) max_id = std::max(max_id, id);
  is_owned_.assign(f.size() == 0 ? 0 : std::size_t(max_id) + 1, 0);
  // The solver holds the whole setup's capacity: owned + halo never exceed all the particles.
  solver_ = std::make_unique<WcsphSolver<CpuExecutor>>(exec_, setup);
  solver_->set_maxima_hook([this](unsigned long long* maxima, const ParticleAcceleration* acceleration) {
    reduce_maxima(maxima, acceleration);
  });
  status_ = solver_->status();
}

void DistributedWcsph::step() {
  if (status_.instability != Instability::none) return;
  const Clock::time_point start = Clock::now();
  figures_.migration = {};
  if (options_.rebalance_every > 0 && steps_ > 0 && steps_ % options_.rebalance_every == 0) {
    rebalance();
    figures_.migration = migrate_particles(comm_, slabs_, owned_);
  }
  halo_ = exchange_halo(comm_, slabs_, owned_, halo_width_, figures_.halo);
  load_solver();
  double exchange = seconds_since(start);

  hook_seconds_ = 0;
  const Clock::time_point stepping = Clock::now();
  solver_->step();
  figures_.step_seconds = seconds_since(stepping) - hook_seconds_;
  exchange += hook_seconds_;

  const Clock::time_point after = Clock::now();
  keep_owned();
  const ExchangeCount moved = migrate_particles(comm_, slabs_, owned_);
  figures_.migration.particles_sent += moved.particles_sent;
  figures_.migration.particles_received += moved.particles_received;
  figures_.migration.bytes_sent += moved.bytes_sent;
  figures_.migration.bytes_received += moved.bytes_received;
  // One rank's instability stops every rank: the largest code wins (any code is a stop).
  status_ = solver_->status();
  unsigned long long instability = (unsigned long long)(status_.instability);
  comm_.max(std::span<unsigned long long>(&instability, 1));
  if (status_.instability == Instability::none && instability != 0) {
    status_.instability = Instability(int(instability));
    status_.bad_step = status_.step;
  }
  exchange += seconds_since(after);

  figures_.exchange_seconds = exchange;
  figures_.total_exchange_seconds += exchange;
  figures_.total_step_seconds += figures_.step_seconds;
  figures_.total_halo_bytes += (long long)(figures_.halo.bytes_sent);
  figures_.total_migrated += (long long)(figures_.migration.particles_sent);
  ++steps_;
}

void DistributedWcsph::rebalance() {
  std::vector<Vec4f> positions(owned_.size());
  for (std::size_t k = 0; k < owned_.size(); ++k) positions[k] = owned_[k].position;
  std::vector<long long> counts =
      axis_histogram(positions, slabs_.axis, slabs_.lo, slabs_.hi, options_.histogram_bins);
  comm_.sum(std::span<long long>(counts));
  std::vector<float> cuts = balanced_cuts(counts, slabs_.lo, slabs_.hi, comm_.size());
  if (cuts != slabs_.cuts) ++figures_.rebalances;
  slabs_.cuts = std::move(cuts);
}

// Owned first, then the halo, into the solver's first slots; the solver sorts them by cell itself.
void DistributedWcsph::load_solver() {
  FluidState<CpuExecutor>& fluid = solver_->fluid();
  const std::size_t count = owned_.size() + halo_.size();
  if (count > fluid.capacity)
    throw std::logic_error("rank " + std::to_string(comm_.rank()) + " holds " + std::to_string(count) +
                           " particles, more than the " + std::to_string(fluid.capacity) + " there are");
  std::size_t k = 0;
  const auto put = [&](const ParticleRecord& record) {
    fluid.position[k] = record.position;
    fluid.velocity[k] = record.velocity;
    fluid.id[k] = record.id;
    fluid.density[k] = record.density;
    fluid.pressure[k] = record.pressure;
    ++k;
  };
  for (const ParticleRecord& record : owned_) {
    is_owned_[record.id] = 1;
    put(record);
  }
  for (const ParticleRecord& record : halo_) put(record);
  fluid.n = std::uint32_t(count);
  fluid.pending = 0;
  solver_->host_step_state().active_count = std::uint32_t(count);
}

// The owned particles in the solver's (cell) order, with this step's results; the halo is dropped.
void DistributedWcsph::keep_owned() {
  const FluidState<CpuExecutor>& fluid = solver_->fluid();
  owned_.clear();
  for (std::uint32_t i = 0; i < fluid.n; ++i) {
    const std::uint32_t id = fluid.id[i];
    if (is_owned_[id] == 0) continue;
    is_owned_[id] = 0;
    owned_.push_back({fluid.position[i], fluid.velocity[i], id, fluid.density[i], fluid.pressure[i]});
  }
  halo_.clear();
}

// The maxima of this rank's owned particles (a halo particle at the halo's edge has a cut neighbourhood and
// a wrong acceleration), then over every rank. The index riding in the acceleration's key names a particle
// of the rank whose maximum won; the others keep the value with index 0, so a time-step collapse reports
// some particle of theirs rather than read past their arrays.
void DistributedWcsph::reduce_maxima(unsigned long long* maxima, const ParticleAcceleration* acceleration) {
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

ParticleFrame DistributedWcsph::owned_frame() const {
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

}  // namespace surge
