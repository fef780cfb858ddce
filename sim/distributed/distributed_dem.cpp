#include "sim/distributed/distributed_dem.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>
#include <string_view>

#include "sim/distributed/rank_checkpoint.h"

namespace surge {

namespace {

using Clock = std::chrono::steady_clock;

// DemSolver::archive_state's sections with one entry per grain (rank_checkpoint.h).
constexpr std::array<std::string_view, 5> kGrainSections = {"dem.position", "dem.velocity", "dem.id",
                                                            "dem.angular_velocity", "dem.acceleration"};
constexpr std::string_view kContactHistory = "dem.contact_history";

// The grain count, a constant of the archive (DemSolver builds for all the setup's grains).
void count_grains(StateSection& section, std::uint64_t count) {
  if (section.name == "dem.grains")
    change_value<std::uint32_t>(section, [&](std::uint32_t& n) { n = std::uint32_t(count); });
}

}  // namespace

DistributedDem::DistributedDem(Communicator& comm, const DemSetup& setup, DistributedOptions options)
    : comm_(comm), options_(options), halo_width_(2.0f * setup.params.max_radius), exec_(ledger_) {
  if (options_.histogram_bins < 1) throw std::invalid_argument("the load balance needs at least one bin");
  const DemParameters& p = setup.params;
  slabs_ = first_slabs(p.domain_min, p.domain_max, setup.grains.position, comm_.size(), options_);
  // Built for all the setup's grains: the buffers hold owned + halo (never more than all of them), and the
  // contact history has the slots of every creation id (with a continued run's history in them).
  solver_ = std::make_unique<DemSolver<CpuExecutor>>(exec_, setup);
  const ParticleFrame& g = setup.grains;
  for (std::size_t i = 0; i < g.size(); ++i) {
    if (slabs_.owner(component(g.position[i], slabs_.axis)) != comm_.rank()) continue;
    GrainRecord record;
    record.position = g.position[i];
    record.velocity = g.velocity[i];
    record.angular_velocity =
        i < setup.angular_velocity.size() ? setup.angular_velocity[i] : Vec4f{0, 0, 0, 0};
    record.id = g.id[i];
    owned_.push_back(record);
  }
  // Creation ids index the contact history and is_owned_: build_dem_setup numbers the grains 0 .. n - 1.
  for (std::uint32_t id : g.id)
    if (id >= g.size()) throw std::logic_error("a grain's creation id is not below the grain count");
  is_owned_.assign(g.size(), 0);
  status_ = solver_->status();
}

void DistributedDem::step() {
  if (status_.instability != Instability::none) return;
  const Clock::time_point start = Clock::now();
  figures_.migration = {};
  if (rebalance_due(options_, steps_)) {
    rebalance_slabs(comm_, slabs_, owned_, options_.histogram_bins, figures_);
    figures_.migration = migrate();
  }
  halo_ = exchange_halo(comm_, slabs_, owned_, halo_width_, figures_.halo, halo_links_);
  load_solver();
  double exchange = seconds_since(start);

  const Clock::time_point stepping = Clock::now();
  solver_->step();
  figures_.step_seconds = seconds_since(stepping);

  const Clock::time_point after = Clock::now();
  keep_owned();
  add_exchange(figures_.migration, migrate());
  status_ = solver_->status();
  float speed = 0.0f;
  for (const GrainRecord& grain : owned_)
    speed = std::max(speed, std::sqrt(length_squared(xyz(grain.velocity))));
  status_.max_speed = reduce_step_status(comm_, status_, speed);
  exchange += seconds_since(after);
  add_step_to_totals(figures_, exchange);
  ++steps_;
}

// Owned first, then the halo, into the solver's first slots; the solver sorts them by cell itself.
void DistributedDem::load_solver() {
  const std::size_t count = owned_.size() + halo_.size();
  if (count > solver_->capacity())
    throw std::logic_error("rank " + std::to_string(comm_.rank()) + " holds " + std::to_string(count) +
                           " grains, more than the " + std::to_string(solver_->capacity()) + " there are");
  const DemGrainArrays grains = solver_->grain_arrays();
  std::size_t k = 0;
  const auto put = [&](const GrainRecord& grain) {
    grains.position[k] = grain.position;
    grains.velocity[k] = grain.velocity;
    if (grains.angular_velocity != nullptr) grains.angular_velocity[k] = grain.angular_velocity;
    grains.id[k] = grain.id;
    ++k;
  };
  for (const GrainRecord& grain : owned_) {
    is_owned_[grain.id] = 1;
    put(grain);
  }
  for (const GrainRecord& grain : halo_) put(grain);
  solver_->set_grain_count(std::uint32_t(count));
}

// The owned grains in the solver's (cell) order, with this step's results; the halo is dropped.
void DistributedDem::keep_owned() {
  const DemGrainArrays grains = solver_->grain_arrays();
  const std::size_t count = solver_->particle_count();
  owned_.clear();
  for (std::size_t i = 0; i < count; ++i) {
    const std::uint32_t id = grains.id[i];
    if (is_owned_[id] == 0) continue;
    is_owned_[id] = 0;
    GrainRecord grain;
    grain.position = grains.position[i];
    grain.velocity = grains.velocity[i];
    grain.angular_velocity =
        grains.angular_velocity != nullptr ? grains.angular_velocity[i] : Vec4f{0, 0, 0, 0};
    grain.id = id;
    grain.contact_stress = grains.acceleration[i].w;
    owned_.push_back(grain);
  }
  halo_.clear();
}

// The grains now in another rank's slab go to it, each with its contact_slots history slots (Mindlin
// friction), out of this rank's solver and into the new owner's, by creation id.
ExchangeCount DistributedDem::migrate() {
  ContactSlot* history = solver_->contact_history();
  if (history == nullptr) return migrate_particles(comm_, slabs_, owned_);
  const std::size_t slots = solver_->contact_slots();
  const std::size_t bytes = slots * sizeof(ContactSlot);
  MigrantAttachment attachment{
      .bytes = bytes,
      .pack = [=](std::uint32_t id,
                  std::byte* to) { std::memcpy(to, history + std::size_t(id) * slots, bytes); },
      .unpack =
          [=, this](std::uint32_t id, const std::byte* from) {
            ContactSlot* mine = history + std::size_t(id) * slots;
            if (migrating_history_ == MigratingHistory::carried) {
              std::memcpy(static_cast<void*>(mine), from, bytes);
            } else {
              for (std::size_t s = 0; s < slots; ++s) mine[s] = ContactSlot{Vec3f{}, kNoPartner};
            }
          }};
  return migrate_particles(comm_, slabs_, owned_, attachment);
}

ParticleFrame DistributedDem::owned_frame() const {
  ParticleFrame frame;
  frame.resize(owned_.size());
  for (std::size_t k = 0; k < owned_.size(); ++k) {
    const GrainRecord& grain = owned_[k];
    frame.position[k] = grain.position;
    frame.velocity[k] = grain.velocity;
    frame.id[k] = grain.id;
    frame.density[k] = grain_material_density(grain.position, grain.velocity);
    frame.pressure[k] = grain.contact_stress;
  }
  frame.time_s = status_.time_s;
  frame.step = status_.step;
  return frame;
}

// The owned grains as the archive's grain sections; their contact history's slots (by creation id in the
// solver) gathered after them in the same order, for rank 0 to put each grain's owner's slots into the
// history it archives (the other ranks' slots of a grain are a halo copy's, never read).
bool DistributedDem::gather_state(SolverState& state) {
  const std::size_t n = owned_.size();
  std::vector<Vec4f> position(n), velocity(n), spin(n), acceleration(n);
  std::vector<std::uint32_t> id(n);
  for (std::size_t k = 0; k < n; ++k) {
    position[k] = owned_[k].position;
    velocity[k] = owned_[k].velocity;
    spin[k] = owned_[k].angular_velocity;
    id[k] = owned_[k].id;
    acceleration[k] = {0, 0, 0, owned_[k].contact_stress};  // only its w (the export's stress) is kept
  }
  SolverState owned;
  add_section(owned, "dem.position", position.data(), n);
  add_section(owned, "dem.velocity", velocity.data(), n);
  add_section(owned, "dem.id", id.data(), n);
  if (solver_->grain_arrays().angular_velocity != nullptr)
    add_section(owned, "dem.angular_velocity", spin.data(), n);
  add_section(owned, "dem.acceleration", acceleration.data(), n);
  state.sections.clear();
  if (comm_.rank() == 0) {
    StateSaver<CpuExecutor> saver(exec_, state);
    solver_->archive_state(saver);
  }
  gather_rank_state(comm_, owned, n, slabs_, kGrainSections, count_grains, state);

  const ContactSlot* history = solver_->contact_history();
  if (history == nullptr) return true;
  const std::size_t slot_bytes = solver_->contact_slots() * sizeof(ContactSlot);
  std::vector<std::byte> slots(n * slot_bytes);
  for (std::size_t k = 0; k < n; ++k)
    std::memcpy(slots.data() + k * slot_bytes, history + std::size_t(id[k]) * solver_->contact_slots(),
                slot_bytes);
  const std::vector<std::byte> all_slots = gather_on_rank0(comm_, slots);
  if (comm_.rank() != 0) return true;
  const std::vector<std::uint32_t> all_ids = section_values<std::uint32_t>(*find_section(state, "dem.id"));
  for (StateSection& section : state.sections) {
    if (section.name != kContactHistory) continue;
    for (std::size_t k = 0; k < all_ids.size(); ++k)
      std::memcpy(section.bytes.data() + std::size_t(all_ids[k]) * slot_bytes,
                  all_slots.data() + k * slot_bytes, slot_bytes);
  }
  return true;
}

void DistributedDem::restore_state(const SolverState& state) {
  const DemParameters& p = solver_->dem_parameters();
  const SolverState mine = take_rank_state(comm_, state, "dem.position", kGrainSections, count_grains,
                                           p.domain_min, p.domain_max, options_, slabs_);
  const StateSection* grains = find_section(mine, "dem.position");
  if (grains->count > solver_->capacity())
    throw StateMismatch("the checkpoint gives this rank " + std::to_string(grains->count) +
                        " grains; the setup has " + std::to_string(solver_->capacity()));
  solver_->set_grain_count(std::uint32_t(grains->count));
  StateLoader<CpuExecutor> loader(exec_, mine);
  solver_->archive_state(loader);
  loader.finish();

  const DemGrainArrays arrays = solver_->grain_arrays();
  std::fill(is_owned_.begin(), is_owned_.end(), std::uint8_t{0});
  owned_.clear();
  halo_.clear();
  for (std::size_t i = 0; i < solver_->particle_count(); ++i) {
    if (arrays.id[i] >= is_owned_.size())
      throw StateMismatch("checkpoint grain id " + std::to_string(arrays.id[i]) + " is beyond this setup's");
    GrainRecord grain;
    grain.position = arrays.position[i];
    grain.velocity = arrays.velocity[i];
    grain.angular_velocity =
        arrays.angular_velocity != nullptr ? arrays.angular_velocity[i] : Vec4f{0, 0, 0, 0};
    grain.id = arrays.id[i];
    grain.contact_stress = arrays.acceleration[i].w;
    owned_.push_back(grain);
  }
  figures_ = {};
  status_ = solver_->status();
  steps_ = status_.step;
}

}  // namespace surge
