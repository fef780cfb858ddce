// What `surge` returns, so scripts and CI can tell a bad scene from a crash from a blown-up run.
#pragma once

#include <iostream>
#include <stdexcept>
#include <string>

namespace surge::app {

enum ExitCode : int {
  kExitSuccess = 0,
  kExitRuntimeError = 1,      // anything unexpected: I/O failure, CUDA error
  kExitBadInput = 2,          // scene file, command line, a GPU asked for and absent
  kExitUnstable = 3,          // the run went unstable and stopped with a diagnosis
  kExitValidationFailed = 4,  // `surge validate`: the run finished but missed a requirement
};

// Bad input that is not in a scene file (a missing GPU, a particle count the device cannot hold).
// main() prints it and exits with kExitBadInput.
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// An error as one line in one write: several ranks under mpirun share stderr, and a line written in pieces
// interleaves with another rank's ("error: error: ..." with the second message bare on the next line).
inline void print_error_line(const std::string& message) {
  std::cerr << (message + '\n') << std::flush;
}

// An error already said on stderr (by every rank, before they left together): main() returns `code` and
// prints nothing more.
struct ErrorAlreadySaid {
  int code = kExitRuntimeError;
};

}  // namespace surge::app
