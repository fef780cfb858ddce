// What the ranks of a distributed run say to each other, and nothing more: an all-to-all of byte blocks
// (the halo and the migrating particles), reductions (the time step, totals, the load balance's histogram)
// and a barrier. The decomposition and the driver (slab_decomposition.h, distributed_sph.h) see only this
// interface, so a transport other than MPI on the host (NCCL between GPUs, docs/multi-rank.md) replaces one
// class. SingleProcess is the one-rank transport: no MPI needed, every call a copy or nothing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace surge {

using ByteBlocks = std::vector<std::vector<std::byte>>;  // one block per rank

class Communicator {
 public:
  virtual ~Communicator() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  // Every rank sends to_rank[r] to rank r (to_rank has size() blocks, any of them empty) and gets back
  // what each rank sent it, by rank. Any rank may send to any other: a particle that crossed two cuts in
  // one step goes straight to its new owner.
  virtual ByteBlocks all_to_all(const ByteBlocks& to_rank) = 0;
  // The same exchange where every rank already knows what it receives: from_rank[r] arrives sized to the
  // bytes rank r sends (a halo refresh: the copies are known from the step's halo exchange). Only the pairs
  // with bytes to move talk, point to point; no counts travel and no collective is made, so a refresh
  // costs a neighbour's latency, not the world's. std::runtime_error, naming both ranks, when a block
  // arrives at another size than expected.
  virtual void exchange_known_sizes(const ByteBlocks& to_rank, ByteBlocks& from_rank) = 0;
  // In place, element by element, over every rank.
  virtual void max(std::span<unsigned long long> values) = 0;
  virtual void sum(std::span<double> values) = 0;
  virtual void sum(std::span<long long> values) = 0;
  virtual void barrier() = 0;
  virtual std::string name() const = 0;  // "MPI (3 ranks)", for reports
};

class SingleProcess final : public Communicator {
 public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  ByteBlocks all_to_all(const ByteBlocks& to_rank) override { return to_rank; }
  void exchange_known_sizes(const ByteBlocks& to_rank, ByteBlocks& from_rank) override {
    from_rank = to_rank;
  }
  void max(std::span<unsigned long long>) override {}
  void sum(std::span<double>) override {}
  void sum(std::span<long long>) override {}
  void barrier() override {}
  std::string name() const override { return "one process"; }
};

// Whether this build has MPI (sim/distributed/mpi_communicator.cpp; CMake's SURGE_MPI).
bool mpi_built();
// The ranks a launcher (mpirun, srun) started, from its environment; 1 when none did. A build without MPI
// uses it to refuse a run it cannot split, rather than run N copies of the same simulation.
int launcher_rank_count();
// MPI's world (MPI_Init on the first call, MPI_Finalize when the last one goes) where MPI is built,
// else SingleProcess. Throws std::runtime_error where MPI is not built and a launcher started several
// ranks, saying so.
std::unique_ptr<Communicator> world_communicator();

}  // namespace surge
