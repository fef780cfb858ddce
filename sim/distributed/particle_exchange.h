// The particles that travel between ranks: migration (an owned particle whose slab is now another rank's
// goes to it, however many cuts lie between) and the halo (copies of the owned particles near another
// rank's slab, which that rank's solver reads as neighbours for one step and then drops). Host records over
// a Communicator; a device transport would pack the same records on the device (docs/multi-rank.md).
#pragma once

#include <cstddef>
#include <cstdint>
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

struct ExchangeCount {
  std::size_t particles_sent = 0, particles_received = 0;
  std::size_t bytes_sent = 0, bytes_received = 0;
};

// Every particle of `owned` whose coordinate along the decomposition's axis lies in another rank's slab goes
// to that rank in one all-to-all; `owned` keeps the rest in their order, then what arrived, by rank.
ExchangeCount migrate_particles(Communicator& comm, const SlabDecomposition& slabs,
                                std::vector<ParticleRecord>& owned);

// Copies of the owned particles within `width` of each other rank's slab, sent to it; returns what this
// rank received (by sending rank, each in its order).
std::vector<ParticleRecord> exchange_halo(Communicator& comm, const SlabDecomposition& slabs,
                                          const std::vector<ParticleRecord>& owned, float width,
                                          ExchangeCount& count);

}  // namespace surge
