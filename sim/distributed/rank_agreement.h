// What every rank of a distributed run must agree on before it goes on: whether a step that may fail on
// one rank alone (reading a checkpoint, writing it on rank 0, opening the gauges' CSV) failed anywhere. A
// rank that threw while the others went on to the next collective would leave them waiting for ever;
// instead every rank reports its outcome (one all-to-all) and, if any failed, every rank stops with the
// same message: the lowest failing rank's.
#pragma once

#include <string>

#include "sim/distributed/communicator.h"

namespace surge {

// How an attempt ended on one rank: `kind` 0 for success, else the caller's code for the kind of failure
// (the app tells bad input from a failed write).
struct RankOutcome {
  int kind = 0;
  std::string message;
  bool failed() const { return kind != 0; }
};

// Every rank passes its own outcome and gets back the lowest failing rank's (kind 0 where none failed). A
// collective: every rank calls it at the same point.
RankOutcome first_failure_over_ranks(Communicator& comm, const RankOutcome& mine);

}  // namespace surge
