// Checkpoint files: a run's whole state at the end of a step, so that `surge run --resume` continues it bit
// for bit on the same kind of backend (docs/checkpoints.md).
//
// Binary, little-endian: the magic "SURGECKP", the format version, then length-prefixed fields: what the
// checkpoint is for (the setup's hash, scene name, solver, backend kind), the clock, the run's outputs (the
// frame series, the gauge CSV, the checkpoint schedule) and the solver's state sections
// (sim/core/solver_state.h); last, an FNV-1a 64 checksum of everything before it. Written atomically (under
// NAME.tmp, renamed when complete), so a crash at any moment leaves the previous checkpoint whole.
#pragma once

#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>

#include "sim/core/solver_state.h"
#include "sim/io/exporters.h"
#include "sim/io/gauge_recorder.h"

namespace surge {

// A checkpoint file that cannot be read (damaged, another format version) or belongs to another run.
class CheckpointError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct Checkpoint {
  // Raised whenever the layout of the file or of a solver's sections changes.
  static constexpr std::uint32_t kFormatVersion = 1;

  // What the setup was made from (setup_hash below): a resumed run must be made from the same.
  std::uint64_t setup_hash = 0;
  std::string scene_name;
  std::string solver;   // "wcsph", "dem", ...
  std::string backend;  // the kind: "cpu" or "gpu"
  std::string backend_description;
  long step = 0;
  double time_s = 0;
  // The run's outputs as they stood.
  FrameSeriesState frames;
  bool has_gauges = false;
  GaugeRecorderState gauges;
  long next_checkpoint_event = 0;  // the checkpoint schedule's next event (every_time only)
  SolverState state;
};

// Throws std::runtime_error naming the path and errno's reason when it cannot write.
void write_checkpoint(const std::filesystem::path& path, const Checkpoint& checkpoint);
// Throws CheckpointError naming the path and the problem: unreadable, not a checkpoint, another format
// version, truncated or damaged (checksum).
Checkpoint read_checkpoint(const std::filesystem::path& path);

// FNV-1a 64 over the scene file's bytes and the options that change the setup (solver, particle count):
// the same scene file run the same way hashes the same wherever it lies.
std::uint64_t setup_hash(std::string_view scene_text, std::string_view options);

}  // namespace surge
