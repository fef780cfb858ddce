// Temporary files in flight: every output is written under a temporary name (NAME.tmp, VIDEO.mp4.part)
// and renamed when complete, and while it is being written its name is listed here, where a signal
// handler can reach it. A second Ctrl-C ends `surge run` at once (app/interrupts.h): it calls
// remove_temporary_files_in_flight() and _exit()s, so even that leaves no temporary file behind.
//
// The list is a fixed table of slots, each guarded by a sequence number (a seqlock): the writer makes the
// number odd, copies the path and makes it even again; the handler copies a path only between two equal
// even readings, so it never unlinks a path torn by a slot being reused under it. Nothing here allocates
// or locks in the handler's half, which is what async-signal safety asks.
#pragma once

#include <sys/types.h>

#include <filesystem>

namespace surge {

// Lists `path` (and, when it is not 0, the child process writing it, such as ffmpeg) for as long as the
// object lives. With every slot taken the path is simply not listed: a Ctrl-C Ctrl-C might then leave it.
class TemporaryFileInFlight {
 public:
  explicit TemporaryFileInFlight(const std::filesystem::path& path, pid_t writer = 0);
  ~TemporaryFileInFlight();
  TemporaryFileInFlight(const TemporaryFileInFlight&) = delete;
  TemporaryFileInFlight& operator=(const TemporaryFileInFlight&) = delete;

  // Lists a child that starts writing after the path was listed (a process spawned for it).
  void set_writer(pid_t writer);
  bool listed() const { return slot_ >= 0; }

 private:
  int slot_ = -1;
};

// Async-signal-safe: kills (SIGKILL) each listed writer process, then unlinks each listed path; returns
// how many files it removed. For a signal handler that is about to _exit(); elsewhere it would pull files
// from under their writers.
int remove_temporary_files_in_flight() noexcept;

// How many paths are listed now (tests).
int temporary_files_in_flight();

}  // namespace surge
