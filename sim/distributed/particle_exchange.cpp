#include "sim/distributed/particle_exchange.h"

#include <cstring>
#include <type_traits>

namespace surge {

namespace {

static_assert(std::is_trivially_copyable_v<ParticleRecord>, "records travel as bytes");
static_assert(std::is_trivially_copyable_v<DfsphParticleRecord>, "records travel as bytes");
static_assert(std::is_trivially_copyable_v<GrainRecord>, "records travel as bytes");
static_assert(sizeof(GrainRecord) == 64, "a grain travels in 64 bytes");

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

// Migrants one by one: each record is followed by its attachment's bytes.
template <typename Record>
void append_migrant(std::vector<std::byte>& block, const Record& record,
                    const MigrantAttachment& attachment) {
  append(block, record);
  if (attachment.bytes == 0) return;
  const std::size_t at = block.size();
  block.resize(at + attachment.bytes);
  attachment.pack(record.id, block.data() + at);
}

template <typename Record>
void unpack_migrants(const std::vector<std::byte>& block, std::vector<Record>& into,
                     const MigrantAttachment& attachment) {
  if (attachment.bytes == 0) return unpack(block, into);
  const std::size_t stride = sizeof(Record) + attachment.bytes;
  for (std::size_t at = 0; at + stride <= block.size(); at += stride) {
    Record record;
    std::memcpy(static_cast<void*>(&record), block.data() + at, sizeof(Record));
    attachment.unpack(record.id, block.data() + at + sizeof(Record));
    into.push_back(record);
  }
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
                                std::vector<Record>& owned, const MigrantAttachment& attachment) {
  const int self = comm.rank();
  ByteBlocks to_rank(std::size_t(comm.size()));
  std::vector<Record> kept;
  kept.reserve(owned.size());
  for (const Record& record : owned) {
    const int owner = slabs.owner(component(record.position, slabs.axis));
    if (owner == self) {
      kept.push_back(record);
    } else {
      append_migrant(to_rank[std::size_t(owner)], record, attachment);
    }
  }
  const ByteBlocks received = comm.all_to_all(to_rank);
  for (std::size_t r = 0; r < received.size(); ++r)
    if (int(r) != self) unpack_migrants(received[r], kept, attachment);
  owned = std::move(kept);
  return count_blocks(to_rank, received, self, sizeof(Record) + attachment.bytes);
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
                                         std::vector<ParticleRecord>&, const MigrantAttachment&);
template ExchangeCount migrate_particles(Communicator&, const SlabDecomposition&,
                                         std::vector<DfsphParticleRecord>&, const MigrantAttachment&);
template ExchangeCount migrate_particles(Communicator&, const SlabDecomposition&, std::vector<GrainRecord>&,
                                         const MigrantAttachment&);
template std::vector<ParticleRecord> exchange_halo(Communicator&, const SlabDecomposition&,
                                                   const std::vector<ParticleRecord>&, float, ExchangeCount&,
                                                   HaloLinks&);
template std::vector<DfsphParticleRecord> exchange_halo(Communicator&, const SlabDecomposition&,
                                                        const std::vector<DfsphParticleRecord>&, float,
                                                        ExchangeCount&, HaloLinks&);
template std::vector<GrainRecord> exchange_halo(Communicator&, const SlabDecomposition&,
                                                const std::vector<GrainRecord>&, float, ExchangeCount&,
                                                HaloLinks&);

}  // namespace surge
