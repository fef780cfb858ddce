#!/usr/bin/env bash
# Downloads the header-only build dependencies as .deb files into .deps/ (git-ignored), for a GPU
# machine that has nvcc and cmake but no Debian packages; scripts/gpu-check.sh unpacks them there.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p .deps/pkg /tmp/amd64-lists/partial
o=(-oAPT::Architecture=amd64 -oAPT::Architectures=amd64 -oDir::State::Lists=/tmp/amd64-lists)
apt-get "${o[@]}" update -qq
(cd .deps/pkg && apt-get "${o[@]}" download -qq libtomlplusplus-dev libcli11-dev nlohmann-json3-dev libgtest-dev)
du -sh .deps
