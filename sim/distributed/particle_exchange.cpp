#include "sim/distributed/particle_exchange.h"

#include <cstring>
#include <type_traits>

namespace surge {

namespace {

static_assert(std::is_trivially_copyable_v<ParticleRecord>, "records travel as bytes");
static_assert(std::is_trivially_copyable_v<DfsphParticleRecord>, "records travel as bytes");

template <typename Record>
void append(std::vector<std::byte>& block, const Record& record) {
  const std::size_t at = block.size();
  block.resize(at + sizeof(Record));
  std::memcpy(block.data() + at, &record, sizeof(Record));
}

template <typename Record>
void unpack(const std::vector<std::byte>& block, std::vector<Record>& into) {
  const std::size_t count = block.size() / sizeof(Record);
  const std::size_t at = into.size();
  into.resize(at + count);
  if (count > 0) std::memcpy(static_cast<void*>(into.data() + at), block.data(), count * sizeof(Record));
}

ExchangeCount count_blocks(const ByteBlocks& sent, const ByteBlocks& received, int self,
                           std::size_t record_bytes) {
  ExchangeCount count;
  for (std::size_t r = 0; r < sent.size(); ++r) {
    if (int(r) == self) continue;
    count.bytes_sent += sent[r].size();
    count.bytes_received += received[r].size();
  }
  count.particles_sent = count.bytes_sent / record_bytes;
  count.particles_received = count.bytes_received / record_bytes;
  return count;
}

}  // namespace

template <typename Record>
ExchangeCount migrate_particles(Communicator& comm, const SlabDecomposition& slabs,
                                std::vector<Record>& owned) {
  const int self = comm.rank();
  ByteBlocks to_rank(std::size_t(comm.size()));
  std::vector<Record> kept;
  kept.reserve(owned.size());
  for (const Record& record : owned) {
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
  return count_blocks(to_rank, received, self, sizeof(Record));
}

template <typename Record>
std::vector<Record> exchange_halo(Communicator& comm, const SlabDecomposition& slabs,
                                  const std::vector<Record>& owned, float width, ExchangeCount& count,
                                  HaloLinks& links) {
  const int self = comm.rank();
  const std::size_t ranks = std::size_t(comm.size());
  ByteBlocks to_rank(ranks);
  links.sent_ids.assign(ranks, {});
  links.received_ids.assign(ranks, {});
  const auto send = [&](int r, const Record& record) {
    append(to_rank[std::size_t(r)], record);
    links.sent_ids[std::size_t(r)].push_back(record.id);
  };
  for (const Record& record : owned) {
    const float x = component(record.position, slabs.axis);
    // Most particles are far from every other slab: test the neighbours' slabs outwards and stop at the
    // first one out of reach (slabs are ordered, so those beyond it are farther still).
    for (int r = self - 1; r >= 0 && x <= slabs.slab_max(r) + width; --r) send(r, record);
    for (int r = self + 1; r < comm.size() && x >= slabs.slab_min(r) - width; ++r) send(r, record);
  }
  const ByteBlocks received = comm.all_to_all(to_rank);
  std::vector<Record> halo;
  for (std::size_t r = 0; r < ranks; ++r) {
    if (int(r) == self) continue;
    const std::size_t first = halo.size();
    unpack(received[r], halo);
    for (std::size_t k = first; k < halo.size(); ++k) links.received_ids[r].push_back(halo[k].id);
  }
  count = count_blocks(to_rank, received, self, sizeof(Record));
  return halo;
}

template ExchangeCount migrate_particles(Communicator&, const SlabDecomposition&,
                                         std::vector<ParticleRecord>&);
template ExchangeCount migrate_particles(Communicator&, const SlabDecomposition&,
                                         std::vector<DfsphParticleRecord>&);
template std::vector<ParticleRecord> exchange_halo(Communicator&, const SlabDecomposition&,
                                                   const std::vector<ParticleRecord>&, float, ExchangeCount&,
                                                   HaloLinks&);
template std::vector<DfsphParticleRecord> exchange_halo(Communicator&, const SlabDecomposition&,
                                                        const std::vector<DfsphParticleRecord>&, float,
                                                        ExchangeCount&, HaloLinks&);

}  // namespace surge
