#include "sim/distributed/rank_agreement.h"

#include <cstdint>
#include <cstring>

namespace surge {

RankOutcome first_failure_over_ranks(Communicator& comm, const RankOutcome& mine) {
  // Every rank's outcome to every rank: its kind, then its message.
  std::vector<std::byte> block(sizeof(std::int32_t) + mine.message.size());
  const std::int32_t kind = mine.kind;
  std::memcpy(block.data(), &kind, sizeof kind);
  if (!mine.message.empty())
    std::memcpy(block.data() + sizeof kind, mine.message.data(), mine.message.size());
  const ByteBlocks received = comm.all_to_all(ByteBlocks(std::size_t(comm.size()), block));
  for (const std::vector<std::byte>& outcome : received) {
    std::int32_t their_kind = 0;
    std::memcpy(&their_kind, outcome.data(), sizeof their_kind);
    if (their_kind == 0) continue;
    const char* text = reinterpret_cast<const char*>(outcome.data() + sizeof their_kind);
    return {their_kind, std::string(text, outcome.size() - sizeof their_kind)};
  }
  return {};
}

}  // namespace surge
