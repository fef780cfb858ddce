#include "app/run_checkpoints.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>
#include <utility>

#include "app/exit_codes.h"

namespace surge::app {

Checkpoint checkpoint_identity(const Scene& scene, long particles_override,
                               const std::string& density_override, const std::string& backend_kind,
                               const std::string& backend_description) {
  std::ifstream in(scene.path, std::ios::binary);
  if (!in) throw InputError("cannot read '" + scene.path.string() + "' again: " + std::strerror(errno));
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  // The solver may come from --solver, the resolution from --particles and WCSPH's density from --density:
  // each changes the run. (--density enters only when given, so checkpoints made before it still resume.)
  std::string options =
      std::string("solver=") + solver_name(scene.solver) + ";particles=" + std::to_string(particles_override);
  if (!density_override.empty()) options += ";density=" + density_override;
  Checkpoint identity;
  identity.setup_hash = setup_hash(text, options);
  identity.scene_name = scene.name;
  identity.solver = solver_name(scene.solver);
  identity.backend = backend_kind;
  identity.backend_description = backend_description;
  return identity;
}

Checkpoint read_checkpoint_for(const std::filesystem::path& path, const Checkpoint& identity) {
  Checkpoint checkpoint;
  try {
    checkpoint = read_checkpoint(path);
  } catch (const CheckpointError& error) {
    throw InputError(std::string("--resume: ") + error.what());
  }
  const std::string name = "--resume " + path.string() + ": ";
  if (checkpoint.solver != identity.solver) {
    throw InputError(name + "the checkpoint is of solver " + checkpoint.solver + ", this run's is " +
                     identity.solver + " (pass the --solver the checkpointed run had)");
  }
  if (checkpoint.backend != identity.backend) {
    throw InputError(name + "the checkpoint was written on the " + checkpoint.backend + " backend (" +
                     checkpoint.backend_description + "); resume it there (--mode " + checkpoint.backend +
                     "): a run continues bit for bit only on the kind of backend that began it");
  }
  if (checkpoint.setup_hash != identity.setup_hash) {
    throw InputError(name + "the checkpoint was made from another setup (scene '" + checkpoint.scene_name +
                     "'): the scene file, --particles or --density differs from the checkpointed run's");
  }
  return checkpoint;
}

void expect_same_gauges(const std::filesystem::path& path, const Checkpoint& checkpoint, const Scene& scene) {
  if (checkpoint.has_gauges == !scene.gauges.empty()) return;
  throw InputError("--resume " + path.string() + ": the checkpointed run had " +
                   (checkpoint.has_gauges ? "gauges" : "no gauges") + ", this scene " +
                   (scene.gauges.empty() ? "has none" : "has some"));
}

RunCheckpoints::RunCheckpoints(CheckpointPlan plan, Checkpoint identity, const Checkpoint* resumed)
    : plan_(std::move(plan)),
      identity_(std::move(identity)),
      every_time_(plan_.every_time_s, resumed != nullptr && resumed->next_checkpoint_event > 0
                                          ? resumed->next_checkpoint_event
                                          : 1) {}

bool RunCheckpoints::due(const StepStatus& status) {
  if (plan_.every_time_s > 0) return every_time_.take(status.time_s);
  return plan_.every_steps > 0 && status.step % plan_.every_steps == 0;
}

Checkpoint RunCheckpoints::header(const StepStatus& status, FrameSeriesState frames,
                                  const GaugeRecorder* gauges) const {
  Checkpoint checkpoint = identity_;
  checkpoint.step = status.step;
  checkpoint.time_s = status.time_s;
  checkpoint.frames = std::move(frames);
  if (gauges != nullptr) {
    checkpoint.has_gauges = true;
    checkpoint.gauges = gauges->state();
  }
  checkpoint.next_checkpoint_event = every_time_.next_event();
  return checkpoint;
}

void RunCheckpoints::count_written(const StepStatus& status) {
  ++written_;
  last_step_ = status.step;
}

void RunCheckpoints::write(Simulation& simulation, const StepStatus& status, FrameWriter& frames,
                           const GaugeRecorder* gauges) {
  if (written_at(status)) return;  // the end of the run fell on a scheduled checkpoint
  Checkpoint checkpoint = header(status, frames.state(), gauges);
  if (!simulation.save_state(checkpoint.state))
    throw InputError(simulation.backend_name() + " cannot write checkpoints");
  write_checkpoint(plan_.path, checkpoint);
  count_written(status);
}

std::string RunCheckpoints::plan(bool on_interrupt) const {
  std::ostringstream text;
  text << plan_.path.string() << ", ";
  if (plan_.every_time_s > 0) {
    text << "every " << plan_.every_time_s << " s of simulated time, ";
  } else if (plan_.every_steps > 0) {
    text << "every " << plan_.every_steps << (plan_.every_steps == 1 ? " step, " : " steps, ");
  }
  text << (on_interrupt ? "at the end and on Ctrl-C" : "at the end");
  return text.str();
}

}  // namespace surge::app
