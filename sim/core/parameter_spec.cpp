#include "sim/core/parameter_spec.h"

#include <sstream>

namespace surge {

std::string format_parameter_number(double value) {
  std::ostringstream text;
  text << value;
  return text.str();
}

}  // namespace surge
