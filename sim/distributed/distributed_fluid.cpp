#include "sim/distributed/distributed_fluid.h"

#include <algorithm>

namespace surge {

SlabDecomposition first_slabs(Vec3f domain_min, Vec3f domain_max, std::span<const Vec4f> positions, int ranks,
                              const DistributedOptions& options) {
  SlabDecomposition slabs;
  slabs.axis = longest_axis(domain_min, domain_max);
  slabs.lo = component(domain_min, slabs.axis);
  slabs.hi = component(domain_max, slabs.axis);
  if (options.initial_cuts == InitialCuts::even) {
    slabs.cuts = even_cuts(slabs.lo, slabs.hi, ranks);
  } else {
    const std::vector<long long> counts =
        axis_histogram(positions, slabs.axis, slabs.lo, slabs.hi, options.histogram_bins);
    slabs.cuts = balanced_cuts(counts, slabs.lo, slabs.hi, ranks);
  }
  return slabs;
}

void rebalance_slabs(Communicator& comm, SlabDecomposition& slabs, std::span<const Vec4f> owned_positions,
                     int histogram_bins, DistributedFigures& figures) {
  std::vector<long long> counts =
      axis_histogram(owned_positions, slabs.axis, slabs.lo, slabs.hi, histogram_bins);
  comm.sum(std::span<long long>(counts));
  std::vector<float> cuts = balanced_cuts(counts, slabs.lo, slabs.hi, comm.size());
  if (cuts != slabs.cuts) ++figures.rebalances;
  slabs.cuts = std::move(cuts);
}

void add_exchange(ExchangeCount& into, const ExchangeCount& more) {
  into.particles_sent += more.particles_sent;
  into.particles_received += more.particles_received;
  into.bytes_sent += more.bytes_sent;
  into.bytes_received += more.bytes_received;
}

// A non-negative float's bits order like the float: the speed's maximum through the integer one.
float reduce_step_status(Communicator& comm, StepStatus& status, float owned_speed) {
  unsigned long long largest[2] = {(unsigned long long)(status.instability),
                                   std::bit_cast<std::uint32_t>(owned_speed)};
  comm.max(largest);
  if (status.instability == Instability::none && largest[0] != 0) {
    status.instability = Instability(int(largest[0]));
    status.bad_step = status.step;
  }
  return std::bit_cast<float>(std::uint32_t(largest[1]));
}

void add_step_to_totals(DistributedFigures& figures, double exchange_seconds) {
  figures.exchange_seconds = exchange_seconds;
  figures.total_exchange_seconds += exchange_seconds;
  figures.total_step_seconds += figures.step_seconds;
  figures.total_halo_bytes += (long long)(figures.halo.bytes_sent);
  figures.total_refresh_bytes += (long long)(figures.refresh_bytes);
  figures.total_refreshes += figures.refreshes;
  figures.total_migrated += (long long)(figures.migration.particles_sent);
}

bool is_rank_layout_section(std::string_view name) {
  return name.starts_with("ranks.");
}

bool remove_rank_layout(SolverState& state) {
  return 0 != std::erase_if(state.sections,
                            [](const StateSection& section) { return is_rank_layout_section(section.name); });
}

}  // namespace surge
