#include "app/graphics/solid_feed.h"

#include <chrono>

namespace surge::app {

render::Mat4 model_matrix(const BodyPose& pose) {
  render::Mat4 model = render::Mat4::identity();
  for (int column = 0; column < 3; ++column) {
    const Vec3f axis = rotate(pose.orientation, Vec3f{column == 0 ? 1.0f : 0.0f, column == 1 ? 1.0f : 0.0f,
                                                      column == 2 ? 1.0f : 0.0f});
    model.at(0, column) = axis.x;
    model.at(1, column) = axis.y;
    model.at(2, column) = axis.z;
  }
  model.at(0, 3) = pose.center.x;
  model.at(1, 3) = pose.center.y;
  model.at(2, 3) = pose.center.z;
  return model;
}

SolidFeed::SolidFeed(Simulation& simulation, render::SolidMeshes& meshes)
    : simulation_(simulation), meshes_(meshes) {
  const std::vector<SolidSurface>& surfaces = simulation.solid_surfaces();
  std::vector<render::SolidShapeView> shapes;
  for (const SolidSurface& surface : surfaces)
    shapes.push_back({surface.triangles.data(), surface.triangles.size()});
  const auto start = std::chrono::steady_clock::now();
  const std::size_t bytes = meshes.set_shapes(shapes);
  if (bytes > 0) {
    simulation.ledger().record(
        CopyDirection::host_to_device, bytes,
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count(),
        "solid surfaces to OpenGL (once)");
  }
  for (std::size_t k = 0; k < surfaces.size(); ++k) meshes.set_model(k, model_matrix(surfaces[k].rest));
  update();
}

void SolidFeed::update() {
  if (meshes_.count() == 0 || !simulation_.download_solid_poses(poses_)) return;
  for (std::size_t k = 0; k < poses_.size() && k < meshes_.count(); ++k)
    meshes_.set_model(k, model_matrix(poses_[k]));
}

}  // namespace surge::app
