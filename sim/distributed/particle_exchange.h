// The particles that travel between ranks: migration (an owned particle whose slab is now another rank's
// goes to it, however many cuts lie between) and the halo (copies of the owned particles near another
// rank's slab, which that rank's solver reads as neighbours for one step and then drops). Host records over
// a Communicator; a device transport would pack the same records on the device (docs/multi-rank.md).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "sim/core/vec.h"
#include "sim/distributed/communicator.h"
#include "sim/distributed/slab_decomposition.h"

namespace surge {

// One particle as it travels: 48 bytes (the two Vec4f align it to 16).
struct ParticleRecord {
  Vec4f position;  // [m]
  Vec4f velocity;  // [m/s]
  std::uint32_t id = 0;
  float density = 0;   // [kg/m^3] of the last step (output; summation density recomputes it)
  float pressure = 0;  // [Pa] of the last step (output)
};

// A DFSPH particle also carries the pressure sums its two solves warm-start from (DfsphSolver): 64 bytes.
// The halo copies carry them too, so that the warm start's pressure values need no refresh.
struct DfsphParticleRecord : ParticleRecord {
  float density_pressure_sum = 0;     // q = p / rho^2 [m^5/(kg s^2)], summed over the density solve
  float divergence_pressure_sum = 0;  // the same over the divergence solve
};

// A DEM grain (DistributedDem): 64 bytes. What the contact law reads of a neighbour (position, radius,
// velocity, mass, spin, and the creation id that keys the contact history), so the halo copies carry all of
// it; the owner's contact stress rides along for the exports. The grain's contact history (its
// contact_slots slots, a run-time count) travels beside the record when it migrates (MigrantAttachment).
struct GrainRecord {
  Vec4f position;          // [m], w = radius [m]
  Vec4f velocity;          // [m/s], w = mass [kg]
  Vec4f angular_velocity;  // [rad/s] (zero without rotation)
  std::uint32_t id = 0;
  float contact_stress = 0;  // [Pa] of the last step (output: the exports' "pressure")
};

// Who holds copies of whom during one step, by rank: the creation ids of the particles this rank sent
// (its own) and received (the copies), each in the order they travelled. A refresh of a halo field within
// the step sends the values in the same order (DistributedSph::refresh_halo).
struct HaloLinks {
  std::vector<std::vector<std::uint32_t>> sent_ids, received_ids;
};

struct ExchangeCount {
  std::size_t particles_sent = 0, particles_received = 0;
  std::size_t bytes_sent = 0, bytes_received = 0;
};

// Bytes that travel with every migrating particle right after its record, as many for each: state a solver
// keeps outside the records, by creation id (the DEM contact history). `pack` writes the bytes of a
// particle leaving this rank, `unpack` takes those of a particle arriving; none when `bytes` is 0.
struct MigrantAttachment {
  std::size_t bytes = 0;
  std::function<void(std::uint32_t id, std::byte* to)> pack;
  std::function<void(std::uint32_t id, const std::byte* from)> unpack;
};

// Every particle of `owned` whose coordinate along the decomposition's axis lies in another rank's slab goes
// to that rank in one all-to-all, with its attachment; `owned` keeps the rest in their order, then what
// arrived, by rank. Record: ParticleRecord, DfsphParticleRecord or GrainRecord.
template <typename Record>
ExchangeCount migrate_particles(Communicator& comm, const SlabDecomposition& slabs,
                                std::vector<Record>& owned, const MigrantAttachment& attachment = {});

// Copies of the owned particles within `width` of each other rank's slab, sent to it; returns what this
// rank received (by sending rank, each in its order), and who went where in `links`.
template <typename Record>
std::vector<Record> exchange_halo(Communicator& comm, const SlabDecomposition& slabs,
                                  const std::vector<Record>& owned, float width, ExchangeCount& count,
                                  HaloLinks& links);

}  // namespace surge
