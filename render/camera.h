// An orbit camera around a target point, z up (Surge's gravity points along -z in the scenes).
// Orbit, pan and zoom are what a mouse does; presets frame a box (the scene's domain) from fixed angles.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "render/gl_math.h"

namespace surge::render {

enum class CameraPreset { perspective, front, side, top };
inline const std::vector<std::string> kCameraPresetNames = {"perspective", "front", "side", "top"};
std::optional<CameraPreset> parse_camera_preset(const std::string& name);

class OrbitCamera {
 public:
  Vec3f target{};
  float distance = 1.0f;    // [m] from target to eye
  float yaw_deg = -60.0f;   // around +z, 0 = looking along +y
  float pitch_deg = 25.0f;  // above the horizontal plane
  float fov_y_deg = 40.0f;

  // Frames the box [box_min, box_max] from the preset's direction, the whole box in view.
  static OrbitCamera framing(Vec3f box_min, Vec3f box_max, CameraPreset preset);

  Vec3f eye() const;
  Mat4 view() const;
  Mat4 projection(float aspect) const;

  void orbit(float yaw_delta_deg, float pitch_delta_deg);
  // Moves the target in the view plane by fractions of the visible height.
  void pan(float right_fraction, float up_fraction);
  // factor < 1 moves closer.
  void zoom(float factor);
  // The point under the pointer on the plane through the target facing the camera; ndc in [-1, 1]
  // (x right, y up), aspect = width / height.
  Vec3f point_on_target_plane(float ndc_x, float ndc_y, float aspect) const;
};

}  // namespace surge::render
