#include "render/camera.h"

#include <algorithm>
#include <cmath>

namespace surge::render {
namespace {

constexpr float kDegree = 3.14159265358979f / 180.0f;
constexpr Vec3f kUp{0.0f, 0.0f, 1.0f};

}  // namespace

std::optional<CameraPreset> parse_camera_preset(const std::string& name) {
  for (std::size_t i = 0; i < kCameraPresetNames.size(); ++i) {
    if (kCameraPresetNames[i] == name) return CameraPreset(i);
  }
  return std::nullopt;
}

OrbitCamera OrbitCamera::framing(Vec3f box_min, Vec3f box_max, CameraPreset preset) {
  OrbitCamera camera;
  camera.target = 0.5f * (box_min + box_max);
  switch (preset) {
    case CameraPreset::perspective:
      camera.yaw_deg = -35.0f, camera.pitch_deg = 25.0f;
      break;
    case CameraPreset::front:  // looking along +y at the x-z plane
      camera.yaw_deg = 0.0f, camera.pitch_deg = 0.0f;
      break;
    case CameraPreset::side:  // looking along -x at the y-z plane
      camera.yaw_deg = -90.0f, camera.pitch_deg = 0.0f;
      break;
    case CameraPreset::top:
      camera.yaw_deg = 0.0f, camera.pitch_deg = 89.0f;
      break;
  }
  // Far enough that the box's bounding sphere fits the vertical field of view, with a margin.
  const float radius = 0.5f * std::sqrt(length_squared(box_max - box_min));
  camera.distance = 1.1f * radius / std::sin(0.5f * camera.fov_y_deg * kDegree);
  return camera;
}

Vec3f OrbitCamera::eye() const {
  const float yaw = yaw_deg * kDegree, pitch = pitch_deg * kDegree;
  // Looking direction for yaw 0, pitch 0 is +y; the eye sits opposite to it.
  const Vec3f looking{std::sin(yaw) * std::cos(pitch), std::cos(yaw) * std::cos(pitch), -std::sin(pitch)};
  return target - distance * looking;
}

Mat4 OrbitCamera::view() const {
  return look_at(eye(), target, kUp);
}

Mat4 OrbitCamera::projection(float aspect) const {
  return perspective(fov_y_deg * kDegree, aspect, 0.01f * distance, 100.0f * distance);
}

void OrbitCamera::orbit(float yaw_delta_deg, float pitch_delta_deg) {
  yaw_deg = std::remainder(yaw_deg + yaw_delta_deg, 360.0f);
  pitch_deg = std::clamp(pitch_deg + pitch_delta_deg, -89.0f, 89.0f);
}

void OrbitCamera::pan(float right_fraction, float up_fraction) {
  const Vec3f forward = normalized(target - eye());
  const Vec3f right = normalized(cross(forward, kUp));
  const Vec3f up = cross(right, forward);
  const float visible_height = 2.0f * distance * std::tan(0.5f * fov_y_deg * kDegree);
  target += (right_fraction * visible_height) * right + (up_fraction * visible_height) * up;
}

Vec3f OrbitCamera::point_on_target_plane(float ndc_x, float ndc_y, float aspect) const {
  const Vec3f forward = normalized(target - eye());
  const Vec3f right = normalized(cross(forward, kUp));
  const Vec3f up = cross(right, forward);
  const float half_height = std::tan(0.5f * fov_y_deg * kDegree);
  // A ray whose component along `forward` is 1 reaches the plane after `distance`.
  const Vec3f ray = forward + (ndc_x * half_height * aspect) * right + (ndc_y * half_height) * up;
  return eye() + distance * ray;
}

void OrbitCamera::zoom(float factor) {
  distance = std::max(distance * factor, 1e-4f);
}

}  // namespace surge::render
