#include "sim/distributed/rank_checkpoint.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>

namespace surge {
namespace {

// The ranks' layout, after the solver's sections.
constexpr std::string_view kOwnedCounts = "ranks.owned";
constexpr std::string_view kSlabAxis = "ranks.axis";
constexpr std::string_view kSlabCuts = "ranks.cuts";

bool listed(std::span<const std::string_view> names, std::string_view name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

}  // namespace

std::vector<std::byte> gather_on_rank0(Communicator& comm, const std::vector<std::byte>& bytes) {
  ByteBlocks to_rank(std::size_t(comm.size()));
  to_rank[0] = bytes;
  std::vector<std::byte> all;
  for (const std::vector<std::byte>& block : comm.all_to_all(to_rank))
    all.insert(all.end(), block.begin(), block.end());
  return all;
}

const StateSection* find_section(const SolverState& state, std::string_view name) {
  for (const StateSection& section : state.sections)
    if (section.name == name) return &section;
  return nullptr;
}

void gather_rank_state(Communicator& comm, const SolverState& owned, std::uint64_t owned_count,
                       const SlabDecomposition& slabs, std::span<const std::string_view> particle_sections,
                       const CountSections& count, SolverState& archive) {
  std::vector<std::byte> count_bytes(sizeof owned_count);
  std::memcpy(count_bytes.data(), &owned_count, sizeof owned_count);
  const std::vector<std::byte> counts_bytes = gather_on_rank0(comm, count_bytes);
  std::vector<std::vector<std::byte>> gathered;
  for (const StateSection& section : owned.sections) gathered.push_back(gather_on_rank0(comm, section.bytes));
  if (comm.rank() != 0) {
    archive.sections.clear();
    return;
  }
  std::vector<std::uint64_t> owned_counts(std::size_t(comm.size()));
  std::memcpy(owned_counts.data(), counts_bytes.data(), counts_bytes.size());
  const std::uint64_t total = std::accumulate(owned_counts.begin(), owned_counts.end(), std::uint64_t{0});
  std::size_t replaced = 0;
  for (StateSection& section : archive.sections) {
    if (!listed(particle_sections, section.name)) {
      count(section, total);
      continue;
    }
    std::size_t k = 0;
    while (k < owned.sections.size() && owned.sections[k].name != section.name) ++k;
    if (k == owned.sections.size())
      throw std::logic_error("the ranks gather no section '" + section.name + "' of the solver's archive");
    section.bytes = std::move(gathered[k]);
    section.count = total;
    ++replaced;
  }
  if (replaced != owned.sections.size())
    throw std::logic_error("the solver's archive lacks a particle section the ranks gathered");
  const std::int32_t axis = slabs.axis;
  add_section(archive, kOwnedCounts, owned_counts.data(), owned_counts.size());
  add_section(archive, kSlabAxis, &axis, 1);
  add_section(archive, kSlabCuts, slabs.cuts.data(), slabs.cuts.size());
}

SolverState take_rank_state(Communicator& comm, const SolverState& state, std::string_view positions,
                            std::span<const std::string_view> particle_sections, const CountSections& count,
                            Vec3f domain_min, Vec3f domain_max, const DistributedOptions& options,
                            SlabDecomposition& slabs) {
  const StateSection* position_section = find_section(state, positions);
  if (position_section == nullptr)
    throw StateMismatch("the checkpoint has no section '" + std::string(positions) +
                        "': it is another solver's");
  const std::vector<Vec4f> all_positions = section_values<Vec4f>(*position_section);
  const std::uint64_t total = all_positions.size();

  // Which of the checkpoint's particles this rank takes, in their order.
  std::vector<std::size_t> taken;
  const StateSection* counts = find_section(state, kOwnedCounts);
  const StateSection* axis = find_section(state, kSlabAxis);
  const StateSection* cuts = find_section(state, kSlabCuts);
  if (counts != nullptr && axis != nullptr && cuts != nullptr &&
      counts->count == std::uint64_t(comm.size())) {
    // As many ranks as wrote it: each its own particles and the cuts, as they were.
    const std::vector<std::uint64_t> owned_counts = section_values<std::uint64_t>(*counts);
    if (std::accumulate(owned_counts.begin(), owned_counts.end(), std::uint64_t{0}) != total)
      throw StateMismatch("checkpoint section 'ranks.owned' counts other particles than '" +
                          std::string(positions) + "' holds");
    if (section_values<std::int32_t>(*axis).at(0) != slabs.axis)
      throw StateMismatch("checkpoint section 'ranks.axis' cuts another axis than this scene's slabs");
    std::vector<float> saved_cuts = section_values<float>(*cuts);
    if (saved_cuts.size() + 1 != owned_counts.size())
      throw StateMismatch("checkpoint section 'ranks.cuts' does not cut its ranks' slabs");
    slabs.cuts = std::move(saved_cuts);
    const std::uint64_t first =
        std::accumulate(owned_counts.begin(), owned_counts.begin() + comm.rank(), std::uint64_t{0});
    taken.resize(owned_counts[std::size_t(comm.rank())]);
    std::iota(taken.begin(), taken.end(), std::size_t(first));
  } else {
    // Another rank count, or one process's checkpoint: the first cuts over these particles.
    slabs = first_slabs(domain_min, domain_max, all_positions, comm.size(), options);
    for (std::size_t i = 0; i < all_positions.size(); ++i)
      if (slabs.owner(component(all_positions[i], slabs.axis)) == comm.rank()) taken.push_back(i);
  }

  SolverState local;
  for (const StateSection& section : state.sections) {
    if (is_rank_layout_section(section.name)) continue;
    StateSection& copy = local.sections.emplace_back();
    copy.name = section.name;
    copy.element_size = section.element_size;
    if (!listed(particle_sections, section.name)) {
      copy.count = section.count;
      copy.bytes = section.bytes;
      count(copy, taken.size());
      continue;
    }
    if (section.count != total || section.bytes.size() != total * section.element_size)
      throw StateMismatch("checkpoint section '" + section.name + "' holds " + std::to_string(section.count) +
                          " entries for " + std::to_string(total) + " particles");
    copy.count = taken.size();
    copy.bytes.resize(taken.size() * section.element_size);
    for (std::size_t k = 0; k < taken.size(); ++k)
      std::memcpy(copy.bytes.data() + k * section.element_size,
                  section.bytes.data() + taken[k] * section.element_size, section.element_size);
  }
  return local;
}

}  // namespace surge
