// What `surge` returns, so scripts and CI can tell a bad scene from a crash from a blown-up run.
#pragma once

#include <stdexcept>

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

}  // namespace surge::app
