// The steps of a checkpoint on ranks that do not depend on the solver (DistributedFluid::gather_state and
// restore_state; docs/checkpoints.md, "On ranks"). The file holds one process's solver archive whose
// particle sections (a solver's list: `particle_sections`) hold every rank's owned particles, one rank after
// another, each in its own order, and after it the ranks' layout: each rank's owned count, the slabs' axis
// and cuts (sections "ranks.*").
#pragma once

#include <cstdint>
#include <cstring>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sim/core/solver_state.h"
#include "sim/core/vec.h"
#include "sim/distributed/communicator.h"
#include "sim/distributed/distributed_fluid.h"
#include "sim/distributed/slab_decomposition.h"

namespace surge {

template <typename T>
void add_section(SolverState& state, std::string_view name, const T* values, std::size_t count) {
  StateSection& section = state.sections.emplace_back();
  section.name = name;
  section.element_size = std::uint32_t(sizeof(T));
  section.count = count;
  section.bytes.resize(count * sizeof(T));
  if (count > 0) std::memcpy(section.bytes.data(), values, section.bytes.size());
}

// The section's entries as values of T; StateMismatch unless it holds entries of T's size.
template <typename T>
std::vector<T> section_values(const StateSection& section) {
  if (section.element_size != sizeof(T) || section.bytes.size() != section.count * sizeof(T))
    throw StateMismatch("checkpoint section '" + section.name + "' holds entries of " +
                        std::to_string(section.element_size) + " bytes; expected " +
                        std::to_string(sizeof(T)));
  std::vector<T> values(std::size_t(section.count));
  if (!values.empty()) std::memcpy(values.data(), section.bytes.data(), section.bytes.size());
  return values;
}

// One value section rewritten in place (a solver's particle count, where the archive keeps one).
template <typename T, typename Change>
void change_value(StateSection& section, Change change) {
  std::vector<T> value = section_values<T>(section);
  if (value.size() != 1) throw StateMismatch("checkpoint section '" + section.name + "' is not one value");
  change(value[0]);
  std::memcpy(section.bytes.data(), value.data(), sizeof(T));
}

const StateSection* find_section(const SolverState& state, std::string_view name);

// Every rank's bytes on rank 0, one rank after another (nothing elsewhere). A collective.
std::vector<std::byte> gather_on_rank0(Communicator& comm, const std::vector<std::byte>& bytes);

// Rewrites a section other than the particles' for `count` particles (a solver's particle count); a
// section it does not know it leaves.
using CountSections = std::function<void(StateSection& section, std::uint64_t count)>;

// A collective after a step. `owned` is this rank's particles as the solver's particle sections, in the
// archive's order. On rank 0 `archive` (its own solver's archive_state) gets every rank's particles in place
// of its own, `count` applied for their total, and the layout after it; on the other ranks it is cleared.
void gather_rank_state(Communicator& comm, const SolverState& owned, std::uint64_t owned_count,
                       const SlabDecomposition& slabs, std::span<const std::string_view> particle_sections,
                       const CountSections& count, SolverState& archive);

// On every rank, from the whole checkpoint `state`, whose `positions` section holds the particles' positions:
// the slabs (on as many ranks as wrote it, its cuts; else, or without a layout, the first cuts balanced over
// the particles) and this rank's share of the archive (its particles, in the file's order, `count` applied),
// for its solver's archive_state to load.
SolverState take_rank_state(Communicator& comm, const SolverState& state, std::string_view positions,
                            std::span<const std::string_view> particle_sections, const CountSections& count,
                            Vec3f domain_min, Vec3f domain_max, const DistributedOptions& options,
                            SlabDecomposition& slabs);

}  // namespace surge
