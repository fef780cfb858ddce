#version 450 core
// The sky, drawn once into a latitude-longitude texture: the background behind the scene and what the water
// reflects (fluid_composite.frag). z is up. A blue gradient from a pale horizon to the zenith, a sun where
// the light comes from, and a dim ground below the horizon (what a puddle on a floor reflects downwards).

in vec2 v_uv;  // u: longitude from -pi to pi; v: polar angle from the zenith (0) to the nadir (1)

uniform vec3 u_to_light;  // world space, unit

out vec4 out_color;

void main() {
  const float pi = 3.14159265;
  float longitude = (v_uv.x - 0.5) * 2.0 * pi, polar = v_uv.y * pi;
  vec3 direction = vec3(sin(polar) * cos(longitude), sin(polar) * sin(longitude), cos(polar));
  const vec3 horizon = vec3(0.80, 0.87, 0.94), zenith = vec3(0.28, 0.48, 0.80);
  const vec3 ground = vec3(0.52, 0.54, 0.57);
  vec3 color = direction.z >= 0.0 ? mix(horizon, zenith, pow(direction.z, 0.55))
                                  : mix(horizon, ground, pow(-direction.z, 0.6));
  // The sun: a small disc brighter than 1 (this texture is half-float) and a soft glow around it.
  float towards_sun = max(dot(direction, u_to_light), 0.0);
  color += vec3(1.0, 0.95, 0.85) * (8.0 * pow(towards_sun, 2000.0) + 0.25 * pow(towards_sun, 24.0));
  out_color = vec4(color, 1.0);
}
