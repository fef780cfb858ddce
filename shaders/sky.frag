#version 450 core
// The sky behind everything: each pixel looks up its view direction in the environment texture.

in vec2 v_uv;

uniform sampler2D u_environment;  // latitude-longitude (environment.frag)
uniform mat4 u_view;
uniform mat4 u_projection;

out vec4 out_color;

vec2 latitude_longitude(vec3 direction) {
  const float pi = 3.14159265;
  return vec2(atan(direction.y, direction.x) / (2.0 * pi) + 0.5, acos(clamp(direction.z, -1.0, 1.0)) / pi);
}

void main() {
  vec2 ndc = 2.0 * v_uv - 1.0;
  vec3 eye_direction = vec3(ndc.x / u_projection[0][0], ndc.y / u_projection[1][1], -1.0);
  // The view matrix is a rotation and a translation: its rotation's transpose turns eye into world directions.
  vec3 world_direction = normalize(transpose(mat3(u_view)) * eye_direction);
  out_color = vec4(texture(u_environment, latitude_longitude(world_direction)).rgb, 1.0);
}
