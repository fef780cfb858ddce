#version 450 core
// A solid's triangles (render/solid_meshes.h), in its body's frame, placed by its model matrix.

layout(location = 0) in vec3 in_position;  // body frame [m]
layout(location = 1) in vec3 in_normal;    // body frame, unit

uniform mat4 u_model;  // a rigid motion: its upper 3x3 turns normals as it turns positions
uniform mat4 u_view;
uniform mat4 u_projection;

out vec3 v_normal;  // world

void main() {
  v_normal = mat3(u_model) * in_normal;
  gl_Position = u_projection * u_view * (u_model * vec4(in_position, 1.0));
}
