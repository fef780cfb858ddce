#!/usr/bin/env bash
# Downloads what a GPU machine without Debian packages needs, as .deb files into .deps/ (git-ignored);
# scripts/gpu-check.sh unpacks them there.
#   .deps/pkg: header-only build dependencies, glad (python3-glad, run from the build) and stb headers
#   .deps/wheels: pybind11 from PyPI, for the Python module against the device's NumPy 2
#   .deps/gl:  the glvnd loaders (libEGL.so.1, libOpenGL.so.0...) that NVIDIA's EGL driver needs; the
#              H200 image has the vendor libraries but not these
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p .deps/pkg .deps/gl /tmp/amd64-lists/partial
o=(-oAPT::Architecture=amd64 -oAPT::Architectures=amd64 -oDir::State::Lists=/tmp/amd64-lists)
apt-get "${o[@]}" update -qq
(cd .deps/pkg && apt-get "${o[@]}" download -qq libtomlplusplus-dev libcli11-dev nlohmann-json3-dev libgtest-dev \
  python3-glad python3-jinja2 python3-markupsafe libstb-dev libdlpack-dev pybind11-dev)
(cd .deps/gl && apt-get "${o[@]}" download -qq libegl1 libglvnd0 libopengl0 libgl1 libglx0 libgles2)
# pybind11 >= 2.12 for the device's Python (NumPy 2 there; Debian's pybind11 2.10 predates it), as a wheel:
# pure headers and CMake files, unzipped on the device by scripts/gpu-check.sh.
mkdir -p .deps/wheels
python3 -m pip download -q --no-deps 'pybind11>=2.12' -d .deps/wheels
du -sh .deps
