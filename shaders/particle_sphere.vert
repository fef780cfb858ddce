#version 450 core
// Particles as point sprites big enough to cover a sphere of radius u_radius (or, for grains, each its own
// radius, kept in position.w); the fragment shader carves the sphere out of the square and writes its true
// depth.

layout(location = 0) in vec4 in_position;  // xyz: centre [m]; w: the grain's radius [m] (else unused)
layout(location = 1) in float in_scalar;   // the quantity particles are coloured by

uniform mat4 u_view;
uniform mat4 u_projection;
uniform float u_radius;           // [m]
uniform int u_radius_from_w;      // 1: in_position.w is each sphere's radius
uniform float u_viewport_height;  // [px]
uniform vec2 u_scalar_range;      // values that map to the colour map's ends

out vec3 v_center_eye;     // sphere centre in eye space
out float v_map_position;  // in_scalar mapped to [0, 1] (unclamped)
out float v_radius;        // [m]

void main() {
  vec4 center_eye = u_view * vec4(in_position.xyz, 1.0);
  v_center_eye = center_eye.xyz;
  gl_Position = u_projection * center_eye;
  // A sphere's projected diameter: 2r * (focal length / distance) in NDC, times half the viewport in px.
  v_radius = u_radius_from_w != 0 ? in_position.w : u_radius;
  gl_PointSize = v_radius * u_projection[1][1] * u_viewport_height / gl_Position.w;
  v_map_position = (in_scalar - u_scalar_range.x) / (u_scalar_range.y - u_scalar_range.x);
}
