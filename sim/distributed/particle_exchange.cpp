#include "sim/distributed/particle_exchange.h"

#include <cstring>
#include <type_traits>

namespace surge {

namespace {

static_assert(std::is_trivially_copyable_v<ParticleRecord>, "records travel as bytes");

void append(std::vector<std::byte>& block, const ParticleRecord& record) {
  const std::size_t at = block.size();
  block.resize(at + sizeof(ParticleRecord));
  std::memcpy(block.data() + at, &record, sizeof(ParticleRecord));
}

void unpack(const std::vector<std::byte>& block, std::vector<ParticleRecord>& into) {
  const std::size_t count = block.size() / sizeof(ParticleRecord);
  const std::size_t at = into.size();
  into.resize(at + count);
  if (count > 0)
    std::memcpy(static_cast<void*>(into.data() + at), block.data(), count * sizeof(ParticleRecord));
}

ExchangeCount count_blocks(const ByteBlocks& sent, const ByteBlocks& received, int self) {
  ExchangeCount count;
  for (std::size_t r = 0; r < sent.size(); ++r) {
    if (int(r) == self) continue;
    count.bytes_sent += sent[r].size();
    count.bytes_received += received[r].size();
  }
  count.particles_sent = count.bytes_sent / sizeof(ParticleRecord);
  count.particles_received = count.bytes_received / sizeof(ParticleRecord);
  return count;
}

}  // namespace

ExchangeCount migrate_particles(Communicator& comm, const SlabDecomposition& slabs,
                                std::vector<ParticleRecord>& owned) {
  const int self = comm.rank();
  ByteBlocks to_rank(std::size_t(comm.size()));
  std::vector<ParticleRecord> kept;
  kept.reserve(owned.size());
  for (const ParticleRecord& record : owned) {
    const int owner = slabs.owner(component(record.position, slabs.axis));
    if (owner == self) {
      kept.push_back(record);
    } else {
      append(to_rank[std::size_t(owner)], record);
    }
  }
  const ByteBlocks received = comm.all_to_all(to_rank);
  for (std::size_t r = 0; r < received.size(); ++r)
    if (int(r) != self) unpack(received[r], kept);
  owned = std::move(kept);
  return count_blocks(to_rank, received, self);
}

std::vector<ParticleRecord> exchange_halo(Communicator& comm, const SlabDecomposition& slabs,
                                          const std::vector<ParticleRecord>& owned, float width,
                                          ExchangeCount& count) {
  const int self = comm.rank();
  ByteBlocks to_rank(std::size_t(comm.size()));
  for (const ParticleRecord& record : owned) {
    const float x = component(record.position, slabs.axis);
    // Most particles are far from every other slab: test the neighbours' slabs outwards and stop at the
    // first one out of reach (slabs are ordered, so those beyond it are farther still).
    for (int r = self - 1; r >= 0 && x <= slabs.slab_max(r) + width; --r)
      append(to_rank[std::size_t(r)], record);
    for (int r = self + 1; r < comm.size() && x >= slabs.slab_min(r) - width; ++r)
      append(to_rank[std::size_t(r)], record);
  }
  const ByteBlocks received = comm.all_to_all(to_rank);
  std::vector<ParticleRecord> halo;
  for (std::size_t r = 0; r < received.size(); ++r)
    if (int(r) != self) unpack(received[r], halo);
  count = count_blocks(to_rank, received, self);
  return halo;
}

}  // namespace surge
