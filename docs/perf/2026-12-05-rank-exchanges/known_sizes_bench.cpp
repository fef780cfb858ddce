// The halo refresh's exchange two ways, on the same blocks, alternated in one run: the all-to-all (counts
// first, then the bytes, two collectives over every rank) against exchange_known_sizes (point to point
// between the ranks that have bytes to move). Each rank sends `copies` x `value_bytes` to each slab
// neighbour, as a refresh of DFSPH's pressure values (4 bytes) or PBF's positions (16) does.
// Build: see README.md beside this file.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "sim/distributed/communicator.h"

int main(int argc, char** argv) {
  using namespace surge;
  const std::size_t copies = argc > 1 ? std::size_t(std::atol(argv[1])) : 1800;
  const std::size_t value_bytes = argc > 2 ? std::size_t(std::atol(argv[2])) : 4;
  const int rounds = argc > 3 ? std::atoi(argv[3]) : 2000;
  const std::unique_ptr<Communicator> comm = world_communicator();
  const int self = comm->rank(), ranks = comm->size();
  const std::size_t blocks = std::size_t(ranks);
  ByteBlocks to_rank(blocks), sized(blocks);
  for (int r = 0; r < ranks; ++r) {
    if (r == self - 1 || r == self + 1) {
      to_rank[r].assign(copies * value_bytes, std::byte(self));
      sized[r].resize(copies * value_bytes);
    }
  }
  using Clock = std::chrono::steady_clock;
  std::vector<double> all_to_all_us, known_us;
  for (int k = 0; k < 8; ++k) {  // alternate the two in blocks of `rounds`
    comm->barrier();
    Clock::time_point t0 = Clock::now();
    for (int i = 0; i < rounds; ++i) (void)comm->all_to_all(to_rank);
    comm->barrier();
    all_to_all_us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count() / rounds);
    t0 = Clock::now();
    for (int i = 0; i < rounds; ++i) comm->exchange_known_sizes(to_rank, sized);
    comm->barrier();
    known_us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count() / rounds);
  }
  std::sort(all_to_all_us.begin(), all_to_all_us.end());
  std::sort(known_us.begin(), known_us.end());
  if (self == 0)
    std::printf(
        "%d ranks, %zu copies x %zu B to each neighbour: all_to_all %.2f us, known sizes %.2f us "
        "(medians of 8 blocks of %d; ratio %.2f)\n",
        ranks, copies, value_bytes, all_to_all_us[4], known_us[4], rounds, known_us[4] / all_to_all_us[4]);
  return 0;
}
