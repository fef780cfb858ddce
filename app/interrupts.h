// Ctrl-C and SIGTERM during `surge run`: the first asks the run to stop after the step in flight, and the
// run then ends as runs end (frames in flight written, the .pvd and the video closed, the gauges' CSV
// renamed into place, the summary printed, marked "interrupted") and exits 128 + the signal's number
// (130 for SIGINT, 143 for SIGTERM), as shells report a process a signal stopped. A second signal stops
// at once: its handler removes the temporary files in flight (sim/io/temporary_files.h) and _exit()s.
#pragma once

namespace surge::app {

// Installs the handlers for SIGINT and SIGTERM; `program` prefixes the handler's notice on stderr.
void install_interrupt_handlers(const char* program = "surge");
// Puts back the default handlers (a run over; tests).
void remove_interrupt_handlers();
// The signal that asked the run to stop, or 0.
int interrupt_signal();
// "SIGINT", "SIGTERM".
const char* signal_name(int signal_number);
inline int interrupted_exit_code(int signal_number) {
  return 128 + signal_number;
}

}  // namespace surge::app
