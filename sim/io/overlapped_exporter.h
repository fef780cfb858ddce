// Exported frames written by a thread of their own while the stepping thread steps on
// (docs/lessons/6-trajectories.md). The stepping thread only takes a snapshot (Simulation::begin_download:
// on the GPU a device-to-device copy and an asynchronous copy to pinned memory; elsewhere a host copy)
// and queues it; the writer thread waits for the snapshot, formats it and writes the files through
// FrameExporter, in the order the frames were queued, so the .pvd is valid and in time order at every
// moment. The queue is bounded: with `queue_depth` frames snapshotted but not yet on disk, the stepping
// thread waits, and that wait is measured. A write error stops the writer (no later frame is written, no
// temporary file is left) and is rethrown to the stepping thread at its next submit() or finish().
// A backend whose particles live on the GPU meshes the surface formats' surface there, on the stepping
// thread at submit() (Simulation::mesh_fluid_surface: it waits for the steps and the mesher, and only the
// mesh crosses the bus); its particles are then snapshotted only for particle formats (vtk, ply).
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "sim/backend/simulation.h"
#include "sim/io/exporters.h"

namespace surge {

// Where an export's time went. The stepping thread's share is what a run loses to exporting.
struct ExportTimes {
  int frames_written = 0;  // by this run (a resumed run's series holds more)
  // stepping thread: begin_download (a host copy on the CPU; queuing on the GPU) and a GPU surface mesh
  double snapshot_s = 0.0;
  double blocked_s = 0.0;  // stepping thread: waiting for a place in the full queue
  double drain_s = 0.0;    // stepping thread: waiting at the end for the queued frames to be written
  double writer_s = 0.0;   // writer thread: waiting for each snapshot, formatting and writing, summed
  double stepping_thread_s() const { return snapshot_s + blocked_s + drain_s; }
  double writer_s_per_frame() const { return frames_written > 0 ? writer_s / frames_written : 0.0; }
};

class OverlappedExporter {
 public:
  static constexpr std::size_t kMaxQueueDepth = Simulation::kMaxDownloadSlots;

  // queue_depth: frames snapshotted but not yet written, 1 to kMaxQueueDepth (std::invalid_argument
  // otherwise); each holds one snapshot's memory (pinned host and device staging on the GPU).
  // before_write, when set, runs on the writer thread before each frame is written: tests slow the
  // writer down with it.
  OverlappedExporter(Simulation& simulation, FrameExporter exporter, std::size_t queue_depth,
                     std::function<void()> before_write = {});
  // Writes what is queued (errors are dropped: call finish() to see them), then stops the writer.
  ~OverlappedExporter();
  OverlappedExporter(const OverlappedExporter&) = delete;
  OverlappedExporter& operator=(const OverlappedExporter&) = delete;

  // Stepping thread: snapshots the simulation as it is now, stamped with `status`'s step and time, and
  // queues it; waits first while the queue is full. Rethrows the writer's error, if it had one.
  void submit(const StepStatus& status);
  // Stepping thread: waits until every queued frame is written; rethrows the writer's error.
  void finish();

  ExportTimes times() const;
  std::size_t queue_depth() const { return queue_depth_; }
  const FrameExporter& exporter() const { return exporter_; }  // read it after finish()

 private:
  struct QueuedFrame {
    std::size_t slot;
    long step;
    double time_s;
    bool particles;                       // begin_download(slot) was called
    std::optional<FluidSurface> surface;  // made where the particles live
  };
  void write_frames();  // the writer thread
  void rethrow_writer_error_locked();

  Simulation& simulation_;
  FrameExporter exporter_;  // used by the writer thread only, until finish()
  int frames_before_;       // in the series before this exporter (a resumed run's)
  std::size_t queue_depth_;
  std::function<void()> before_write_;

  mutable std::mutex mutex_;
  std::condition_variable changed_;  // a frame was queued or written, or the writer stopped
  std::deque<QueuedFrame> queue_;    // snapshotted, waiting for the writer
  std::vector<bool> slot_in_use_;    // snapshotted and not yet written (queued or being written)
  std::size_t frames_in_flight_ = 0;
  bool stopping_ = false;
  std::exception_ptr writer_error_;
  ExportTimes times_;
  ParticleFrame frame_;  // the writer thread's
  std::thread writer_;   // last: started once everything above exists
};

}  // namespace surge
