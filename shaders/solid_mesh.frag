#version 450 core
// Matte: Lambert under one light, over an ambient from the sky above and the ground below, so that faces
// turned away from the light still show their shape, and faces of a box all differ in shade.

in vec3 v_normal;

uniform vec3 u_to_light;  // world, unit
uniform vec3 u_color;

out vec4 out_color;

void main() {
  vec3 normal = normalize(v_normal);
  // World z is up: the sky's share of the ambient grows with how far the face turns up.
  float ambient = mix(0.22, 0.42, 0.5 + 0.5 * normal.z);
  float diffuse = max(dot(normal, u_to_light), 0.0);
  out_color = vec4(u_color * (ambient + 0.62 * diffuse), 1.0);
}
