#include "sim/io/overlapped_exporter.h"

#include <chrono>
#include <stdexcept>
#include <string>
#include <utility>

namespace surge {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

}  // namespace

OverlappedExporter::OverlappedExporter(Simulation& simulation, FrameExporter exporter,
                                       std::size_t queue_depth, std::function<void()> before_write)
    : simulation_(simulation),
      exporter_(std::move(exporter)),
      frames_before_(exporter_.frames_written()),
      queue_depth_(queue_depth),
      before_write_(std::move(before_write)),
      slot_in_use_(queue_depth, false) {
  if (queue_depth_ < 1 || queue_depth_ > kMaxQueueDepth) {
    throw std::invalid_argument("export queue depth " + std::to_string(queue_depth_) +
                                " out of range (1 to " + std::to_string(kMaxQueueDepth) + ")");
  }
  writer_ = std::thread([this] { write_frames(); });
}

OverlappedExporter::~OverlappedExporter() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  writer_.join();
}

void OverlappedExporter::submit(const StepStatus& status) {
  std::size_t slot = 0;
  {
    std::unique_lock lock(mutex_);
    rethrow_writer_error_locked();
    if (frames_in_flight_ == queue_depth_) {
      const auto start = Clock::now();
      changed_.wait(lock, [&] { return frames_in_flight_ < queue_depth_ || writer_error_; });
      times_.blocked_s += seconds_since(start);
      rethrow_writer_error_locked();
    }
    while (slot_in_use_[slot]) ++slot;  // one is free: fewer than queue_depth_ frames are in flight
    slot_in_use_[slot] = true;
    ++frames_in_flight_;
  }
  // Outside the lock: the writer may finish another slot meanwhile. This slot is ours until queued.
  const auto start = Clock::now();
  QueuedFrame frame{slot, status.step, status.time_s, true, std::nullopt};
  try {
    // exporter_'s formats and settings never change: reading them here races with nothing the writer does.
    if (exporter_.writes_surface()) {
      FluidSurface surface;
      if (simulation_.mesh_fluid_surface(exporter_.surface_settings(), surface))
        frame.surface = std::move(surface);
    }
    frame.particles = exporter_.writes_particles() || !frame.surface;
    if (frame.particles) simulation_.begin_download(slot);
  } catch (...) {
    std::lock_guard lock(mutex_);
    slot_in_use_[slot] = false;
    if (frames_in_flight_ > 0) --frames_in_flight_;  // the writer zeroes it when it stops on an error
    throw;
  }
  const double snapshot_s = seconds_since(start);
  {
    std::lock_guard lock(mutex_);
    times_.snapshot_s += snapshot_s;
    queue_.push_back(std::move(frame));
  }
  changed_.notify_all();
}

void OverlappedExporter::finish() {
  std::unique_lock lock(mutex_);
  const auto start = Clock::now();
  changed_.wait(lock, [&] { return frames_in_flight_ == 0 || writer_error_; });
  times_.drain_s += seconds_since(start);
  rethrow_writer_error_locked();
}

ExportTimes OverlappedExporter::times() const {
  std::lock_guard lock(mutex_);
  return times_;
}

void OverlappedExporter::rethrow_writer_error_locked() {
  if (writer_error_) std::rethrow_exception(writer_error_);
}

void OverlappedExporter::write_frames() {
  for (;;) {
    QueuedFrame next{};
    {
      std::unique_lock lock(mutex_);
      changed_.wait(lock, [&] { return !queue_.empty() || stopping_; });
      if (queue_.empty()) return;  // stopping, and everything queued is written
      next = std::move(queue_.front());
      queue_.pop_front();
    }
    const auto start = Clock::now();
    try {
      if (next.particles)
        simulation_.finish_download(next.slot, frame_);
      else
        frame_.resize(0);
      frame_.step = next.step;
      frame_.time_s = next.time_s;
      if (before_write_) before_write_();
      exporter_.write(frame_, next.surface ? &*next.surface : nullptr);
    } catch (const std::exception& error) {
      // The run stops here: later frames are not written, so the series on disk ends at the last good one.
      std::lock_guard lock(mutex_);
      writer_error_ = std::make_exception_ptr(
          std::runtime_error("export stopped at frame " + std::to_string(exporter_.frames_written()) +
                             " (step " + std::to_string(next.step) + "): " + error.what()));
      queue_.clear();
      frames_in_flight_ = 0;
      changed_.notify_all();
      return;
    }
    {
      std::lock_guard lock(mutex_);
      times_.writer_s += seconds_since(start);
      times_.frames_written = exporter_.frames_written() - frames_before_;
      slot_in_use_[next.slot] = false;
      --frames_in_flight_;
    }
    changed_.notify_all();
  }
}

}  // namespace surge
