// The MPI transport (host memory, OpenMPI in CI), compiled with MPI where CMake found it; without it the
// same functions report that this build has none. mpi.h stays in this file: nothing else needs MPI's
// headers to build.
#include <algorithm>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "sim/distributed/communicator.h"

#if SURGE_HAVE_MPI
// The C API only: OpenMPI's and MPICH's deprecated C++ bindings do not compile cleanly under -Werror.
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <limits>
#endif

namespace surge {

int launcher_rank_count() {
  // OpenMPI, MPICH/Hydra and Slurm name the world's size in the environment of every rank.
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE", "SLURM_NTASKS"}) {
    if (const char* value = std::getenv(name)) {
      const int ranks = std::atoi(value);
      if (ranks > 0) return ranks;
    }
  }
  return 1;
}

#if SURGE_HAVE_MPI

namespace {

void check(int code, const char* call) {
  if (code == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(code, text, &length);
  throw std::runtime_error(std::string(call) + " failed: " + std::string(text, std::size_t(length)));
}

int as_count(std::size_t bytes) {
  if (bytes > std::size_t(std::numeric_limits<int>::max()))
    throw std::runtime_error("an MPI message of " + std::to_string(bytes) +
                             " bytes is over MPI's int counts");
  return int(bytes);
}

class MpiCommunicator final : public Communicator {
  static constexpr int kKnownSizesTag = 17;

 public:
  MpiCommunicator() {
    int initialized = 0;
    MPI_Initialized(&initialized);
    if (!initialized) {
      check(MPI_Init(nullptr, nullptr), "MPI_Init");
      owns_ = true;
    }
    // Errors come back as codes, which check() turns into exceptions naming the call.
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
  }
  ~MpiCommunicator() override {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (owns_ && !finalized) MPI_Finalize();
  }
  MpiCommunicator(const MpiCommunicator&) = delete;
  MpiCommunicator& operator=(const MpiCommunicator&) = delete;

  int rank() const override { return rank_; }
  int size() const override { return size_; }

  // The counts first (one int each way), then the blocks in one MPI_Alltoallv.
  ByteBlocks all_to_all(const ByteBlocks& to_rank) override {
    const std::size_t ranks = std::size_t(size_);
    if (to_rank.size() != ranks) throw std::logic_error("all_to_all needs one block per rank");
    std::vector<int> send_counts(ranks), send_offsets(ranks), receive_counts(ranks), receive_offsets(ranks);
    std::size_t send_total = 0;
    for (std::size_t r = 0; r < ranks; ++r) {
      send_counts[r] = as_count(to_rank[r].size());
      send_offsets[r] = as_count(send_total);
      send_total += to_rank[r].size();
    }
    check(MPI_Alltoall(send_counts.data(), 1, MPI_INT, receive_counts.data(), 1, MPI_INT, MPI_COMM_WORLD),
          "MPI_Alltoall");
    std::size_t receive_total = 0;
    for (std::size_t r = 0; r < ranks; ++r) {
      receive_offsets[r] = as_count(receive_total);
      receive_total += std::size_t(receive_counts[r]);
    }
    std::vector<std::byte> send(send_total), receive(receive_total);
    for (std::size_t r = 0; r < ranks; ++r)
      std::copy(to_rank[r].begin(), to_rank[r].end(), send.begin() + send_offsets[r]);
    check(MPI_Alltoallv(send.data(), send_counts.data(), send_offsets.data(), MPI_BYTE, receive.data(),
                        receive_counts.data(), receive_offsets.data(), MPI_BYTE, MPI_COMM_WORLD),
          "MPI_Alltoallv");
    ByteBlocks from_rank(ranks);
    for (std::size_t r = 0; r < ranks; ++r) {
      const auto first = receive.begin() + receive_offsets[r];
      from_rank[r].assign(first, first + receive_counts[r]);
    }
    return from_rank;
  }
  // Receives posted first, then the sends, then one wait for all: no pair can block another. MPI keeps
  // the messages of one pair in order, so successive refreshes need no tags of their own.
  void exchange_known_sizes(const ByteBlocks& to_rank, ByteBlocks& from_rank) override {
    const std::size_t ranks = std::size_t(size_);
    if (to_rank.size() != ranks || from_rank.size() != ranks)
      throw std::logic_error("exchange_known_sizes needs one block per rank each way");
    std::vector<MPI_Request> requests;
    std::vector<int> receive_from;  // the rank of each receive, in the order of `requests`
    for (std::size_t r = 0; r < ranks; ++r) {
      if (int(r) == rank_) {
        from_rank[r] = to_rank[r];
      } else if (!from_rank[r].empty()) {
        requests.emplace_back();
        receive_from.push_back(int(r));
        check(MPI_Irecv(from_rank[r].data(), as_count(from_rank[r].size()), MPI_BYTE, int(r), kKnownSizesTag,
                        MPI_COMM_WORLD, &requests.back()),
              "MPI_Irecv");
      }
    }
    for (std::size_t r = 0; r < ranks; ++r) {
      if (int(r) == rank_ || to_rank[r].empty()) continue;
      requests.emplace_back();
      // MPI's send buffer is const in MPI 3; the cast is for older headers' prototypes.
      check(MPI_Isend(const_cast<std::byte*>(to_rank[r].data()), as_count(to_rank[r].size()), MPI_BYTE,
                      int(r), kKnownSizesTag, MPI_COMM_WORLD, &requests.back()),
            "MPI_Isend");
    }
    std::vector<MPI_Status> statuses(requests.size());
    const int code = MPI_Waitall(int(requests.size()), requests.data(), statuses.data());
    if (code == MPI_ERR_IN_STATUS) {
      for (const MPI_Status& status : statuses) check(status.MPI_ERROR, "MPI_Waitall");
    }
    check(code, "MPI_Waitall");
    for (std::size_t k = 0; k < receive_from.size(); ++k) {
      int count = 0;
      MPI_Get_count(&statuses[k], MPI_BYTE, &count);
      const std::size_t expected = from_rank[std::size_t(receive_from[k])].size();
      if (std::size_t(count) != expected)
        throw std::runtime_error("rank " + std::to_string(rank_) + " expected " + std::to_string(expected) +
                                 " bytes from rank " + std::to_string(receive_from[k]) + " and received " +
                                 std::to_string(count));
    }
  }
  void max(std::span<unsigned long long> values) override {
    check(MPI_Allreduce(MPI_IN_PLACE, values.data(), as_count(values.size()), MPI_UNSIGNED_LONG_LONG, MPI_MAX,
                        MPI_COMM_WORLD),
          "MPI_Allreduce");
  }
  void sum(std::span<double> values) override {
    check(MPI_Allreduce(MPI_IN_PLACE, values.data(), as_count(values.size()), MPI_DOUBLE, MPI_SUM,
                        MPI_COMM_WORLD),
          "MPI_Allreduce");
  }
  void sum(std::span<long long> values) override {
    check(MPI_Allreduce(MPI_IN_PLACE, values.data(), as_count(values.size()), MPI_LONG_LONG, MPI_SUM,
                        MPI_COMM_WORLD),
          "MPI_Allreduce");
  }
  void barrier() override { check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier"); }
  std::string name() const override { return "MPI (" + std::to_string(size_) + " ranks)"; }

 private:
  int rank_ = 0, size_ = 1;
  bool owns_ = false;
};

}  // namespace

bool mpi_built() {
  return true;
}

std::unique_ptr<Communicator> world_communicator() {
  return std::make_unique<MpiCommunicator>();
}

#else

bool mpi_built() {
  return false;
}

std::unique_ptr<Communicator> world_communicator() {
  const int ranks = launcher_rank_count();
  if (ranks > 1)
    throw std::runtime_error("this build of surge has no MPI, but a launcher started " +
                             std::to_string(ranks) +
                             " ranks: rebuild with MPI (Debian: libopenmpi-dev) or run one process");
  return std::make_unique<SingleProcess>();
}

#endif

}  // namespace surge
