#!/usr/bin/env bash
# Installs what Surge needs to build and test on Debian 12. The CUDA toolkit is expected to be there
# already (/usr/local/cuda); without it Surge builds the CPU backend only.
# Safe to re-run: when every package is present it returns without touching apt.
set -euo pipefail

packages=(
  cmake ninja-build pkg-config g++ git
  dpkg-dev file  # dpkg-shlibdeps and file: the .deb that CPack makes lists the libraries surge links
  libtomlplusplus-dev libcli11-dev nlohmann-json3-dev
  libgtest-dev libgmock-dev
  # Rendering: glad generates the GL/EGL loader at build time; stb writes PNGs; Mesa's EGL and llvmpipe
  # render offscreen without a GPU or X server (the rendering tests).
  python3-glad libstb-dev libegl1 libegl-mesa0 libgl1-mesa-dri
  # `surge view`: a GLFW window with Dear ImGui; Xvfb runs its test without a display.
  libglfw3-dev libimgui-dev xvfb xauth xdotool
  # `--video` pipes frames to ffmpeg; the CLI test encodes a short MP4.
  ffmpeg
  librsvg2-bin fonts-dejavu-core  # rsvg-convert draws the PNG of `surge validate` plots from their SVG
  # The Python module (pybind11, the DLPack header) and its tests (NumPy, pytest).
  python3-dev python3-pybind11 python3-numpy python3-pytest libdlpack-dev
  # Several processes (mpirun -np N surge run; docs/multi-rank.md): OpenMPI's headers and its launcher.
  # Optional: without them Surge builds, and a run on several ranks says this build has no MPI.
  libopenmpi-dev openmpi-bin
  libassimp-dev  # reads solids' mesh files (OBJ, STL); optional: without it Surge builds, and says so when asked for a mesh
  # --export vdb (OpenVDB level sets of the fluid surface); optional like assimp. libopenvdb-dev's headers
  # include Boost's without depending on libboost-dev, so both are named.
  libopenvdb-dev libboost-dev
  # scripts/fuzz.sh: clang with libFuzzer and the sanitizer runtimes (libclang-rt, only recommended by
  # clang), and LLVM's OpenMP, which clang links (g++ uses libgomp). scripts/sanitize.sh needs only g++.
  clang libclang-rt-14-dev libomp-14-dev
)

missing=()
for package in "${packages[@]}"; do
  if [[ "$(dpkg-query -W -f='${db:Status-Abbrev}' "$package" 2>/dev/null)" != ii* ]]; then
    missing+=("$package")
  fi
done

if ((${#missing[@]} == 0)); then
  echo "install-deps: all ${#packages[@]} packages already installed"
  exit 0
fi

# CI runs as root; a developer machine may need sudo.
as_root=()
if ((EUID != 0)); then
  if command -v sudo >/dev/null; then
    as_root=(sudo)
  else
    echo "install-deps: not root and no sudo; install these yourself: ${missing[*]}" >&2
    exit 1
  fi
fi

echo "install-deps: installing ${missing[*]}"
"${as_root[@]}" apt-get update
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive \
  apt-get install -y --no-install-recommends "${missing[@]}"
echo "install-deps: installed ${#missing[@]} packages"
