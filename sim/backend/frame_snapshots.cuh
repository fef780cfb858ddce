// The GPU side of the overlapped export (Simulation::begin_download / finish_download,
// docs/lessons/6-trajectories.md). A snapshot is taken in two moves so that stepping never waits for the bus:
//   1. on the compute stream, after the steps issued so far: a device-to-device copy of the fluid arrays
//      into this slot's staging buffers (about 2 x 44 B per particle of device bandwidth, well under a
//      millisecond for millions of particles); the next step's kernels, queued behind it, may then overwrite
//      the particles;
//   2. on a copy stream of its own, once the staging copy is done (an event): a copy from staging to this
//      slot's pinned host buffers, which the copy engine runs while the compute stream goes on stepping.
// finish() waits for the slot's last event, records the copy in the transfer ledger and fills a
// ParticleFrame. Each slot is used by one thread at a time: begin() on the stepping thread, then finish()
// on the writer thread, and begin() again only after finish() returned (the caller's queue guarantees it).
// Included only by .cu files.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>

#include "sim/backend/simulation.h"
#include "sim/core/cuda_check.h"
#include "sim/core/device_buffer.h"
#include "sim/core/particle_frame.h"
#include "sim/core/pinned_buffer.h"
#include "sim/core/transfer_ledger.h"

namespace surge {

// Where the fluid particles live on the device: count entries each.
struct DeviceParticleArrays {
  const Vec4f* position = nullptr;
  const Vec4f* velocity = nullptr;
  const float* density = nullptr;
  const float* pressure = nullptr;
  const std::uint32_t* id = nullptr;
  std::size_t count = 0;
};

// Bytes per particle an export frame moves over the bus: position and velocity (float4), density,
// pressure, id.
inline constexpr std::size_t kExportBytesPerParticle =
    2 * sizeof(Vec4f) + 2 * sizeof(float) + sizeof(std::uint32_t);

class DeviceFrameSnapshots {
 public:
  DeviceFrameSnapshots() = default;
  ~DeviceFrameSnapshots() {
    // Copies may still be in flight for slots begun but never finished (a run stopped by an error).
    if (copy_stream_) cudaStreamSynchronize(copy_stream_);
    for (Slot& slot : slots_) {
      if (!slot) continue;
      cudaEventDestroy(slot->staged);
      cudaEventDestroy(slot->copy_started);
      cudaEventDestroy(slot->copy_done);
    }
    if (copy_stream_) cudaStreamDestroy(copy_stream_);
  }
  DeviceFrameSnapshots(const DeviceFrameSnapshots&) = delete;
  DeviceFrameSnapshots& operator=(const DeviceFrameSnapshots&) = delete;

  // Queues the snapshot of `source` behind the work already on `compute_stream`; returns at once.
  void begin(std::size_t slot_index, const DeviceParticleArrays& source, cudaStream_t compute_stream) {
    Buffers& slot = prepare(slot_index, source.count);
    const std::size_t n = source.count;
    // 1. device to device, in stream order with the steps, so the snapshot is exactly "after the last step".
    stage(slot.position, source.position, n, compute_stream);
    stage(slot.velocity, source.velocity, n, compute_stream);
    stage(slot.density, source.density, n, compute_stream);
    stage(slot.pressure, source.pressure, n, compute_stream);
    stage(slot.id, source.id, n, compute_stream);
    SURGE_CUDA_CHECK(cudaEventRecord(slot.staged, compute_stream));
    // 2. staging to pinned host memory on the copy stream, once the staging copy is done.
    SURGE_CUDA_CHECK(cudaStreamWaitEvent(copy_stream_, slot.staged, 0));
    SURGE_CUDA_CHECK(cudaEventRecord(slot.copy_started, copy_stream_));
    download(slot.host_position, slot.position);
    download(slot.host_velocity, slot.velocity);
    download(slot.host_density, slot.density);
    download(slot.host_pressure, slot.pressure);
    download(slot.host_id, slot.id);
    SURGE_CUDA_CHECK(cudaEventRecord(slot.copy_done, copy_stream_));
    slot.count = n;
    slot.pending = true;
  }

  // Waits for the slot's copy to the host, records it in the ledger (reason "export frame", the copy
  // engine's time by events) and copies the pinned buffers into `frame`.
  void finish(std::size_t slot_index, ParticleFrame& frame, TransferLedger& ledger) {
    Buffers& slot = existing(slot_index);
    if (!slot.pending) {
      throw std::logic_error("finish_download(" + std::to_string(slot_index) + ") without begin_download");
    }
    slot.pending = false;
    SURGE_CUDA_CHECK(cudaEventSynchronize(slot.copy_done));
    float copy_ms = 0.0f;
    SURGE_CUDA_CHECK(cudaEventElapsedTime(&copy_ms, slot.copy_started, slot.copy_done));
    const std::size_t n = slot.count;
    // One ledger entry per array, as the synchronous download() makes; the time is shared out by bytes.
    const double ms_per_byte = n > 0 ? double(copy_ms) / double(n * kExportBytesPerParticle) : 0.0;
    const auto record = [&](std::size_t bytes) {
      ledger.record(CopyDirection::device_to_host, bytes, ms_per_byte * double(bytes), "export frame");
    };
    record(n * sizeof(Vec4f));
    record(n * sizeof(Vec4f));
    record(n * sizeof(float));
    record(n * sizeof(float));
    record(n * sizeof(std::uint32_t));
    frame.resize(n);
    std::copy_n(slot.host_position.data(), n, frame.position.begin());
    std::copy_n(slot.host_velocity.data(), n, frame.velocity.begin());
    std::copy_n(slot.host_density.data(), n, frame.density.begin());
    std::copy_n(slot.host_pressure.data(), n, frame.pressure.begin());
    std::copy_n(slot.host_id.data(), n, frame.id.begin());
  }

 private:
  struct Buffers {
    DeviceBuffer<Vec4f> position, velocity;
    DeviceBuffer<float> density, pressure;
    DeviceBuffer<std::uint32_t> id;
    PinnedBuffer<Vec4f> host_position, host_velocity;
    PinnedBuffer<float> host_density, host_pressure;
    PinnedBuffer<std::uint32_t> host_id;
    cudaEvent_t staged = nullptr;        // the device-to-device copy is done
    cudaEvent_t copy_started = nullptr;  // timing events around the copy to the host
    cudaEvent_t copy_done = nullptr;
    std::size_t count = 0;
    bool pending = false;
  };
  using Slot = std::unique_ptr<Buffers>;

  // Staging and pinned memory are allocated on a slot's first use: a run without exports pays nothing.
  Buffers& prepare(std::size_t slot_index, std::size_t n) {
    if (slot_index >= slots_.size()) {
      throw std::out_of_range("download slot " + std::to_string(slot_index) + " out of range (0 to " +
                              std::to_string(slots_.size() - 1) + ")");
    }
    if (!copy_stream_) SURGE_CUDA_CHECK(cudaStreamCreateWithFlags(&copy_stream_, cudaStreamNonBlocking));
    Slot& slot = slots_[slot_index];
    if (!slot) {
      slot = std::make_unique<Buffers>();
      SURGE_CUDA_CHECK(cudaEventCreateWithFlags(&slot->staged, cudaEventDisableTiming));
      SURGE_CUDA_CHECK(cudaEventCreate(&slot->copy_started));
      SURGE_CUDA_CHECK(cudaEventCreate(&slot->copy_done));
    }
    if (slot->pending) {
      throw std::logic_error("begin_download(" + std::to_string(slot_index) +
                             ") while its last snapshot is not finished");
    }
    slot->position.resize(n);
    slot->velocity.resize(n);
    slot->density.resize(n);
    slot->pressure.resize(n);
    slot->id.resize(n);
    slot->host_position.resize(n);
    slot->host_velocity.resize(n);
    slot->host_density.resize(n);
    slot->host_pressure.resize(n);
    slot->host_id.resize(n);
    return *slot;
  }
  Buffers& existing(std::size_t slot_index) {
    if (slot_index >= slots_.size() || !slots_[slot_index]) {
      throw std::logic_error("finish_download(" + std::to_string(slot_index) + ") without begin_download");
    }
    return *slots_[slot_index];
  }

  template <typename T>
  static void stage(DeviceBuffer<T>& staging, const T* source, std::size_t n, cudaStream_t stream) {
    if (n > 0) {
      SURGE_CUDA_CHECK(
          cudaMemcpyAsync(staging.data(), source, n * sizeof(T), cudaMemcpyDeviceToDevice, stream));
    }
  }
  template <typename T>
  void download(PinnedBuffer<T>& host, const DeviceBuffer<T>& staging) {
    if (staging.size() > 0) {
      SURGE_CUDA_CHECK(cudaMemcpyAsync(host.data(), staging.data(), staging.bytes(), cudaMemcpyDeviceToHost,
                                       copy_stream_));
    }
  }

  cudaStream_t copy_stream_ = nullptr;
  std::array<Slot, Simulation::kMaxDownloadSlots> slots_;
};

}  // namespace surge
