#!/usr/bin/env bash
# Installs NVRTC 13.0 and the CUDA headers into .nvrtc/ from PyPI, so that `cargo test` can
# compile and check every kernel on a machine without a GPU or a CUDA toolkit.
# Kept at 13.0: PTX from a newer NVRTC is refused by the 13.0 driver of our GPU machine.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -f .nvrtc/nvidia/cu13/lib/libnvrtc.so.13 ] && [ -d .nvrtc/nvidia/cu13/include/cccl ] \
    && [ -f .nvrtc/nvidia/cu13/include/crt/mma.h ]; then
    echo "NVRTC is already in .nvrtc/"
    exit 0
fi
echo "Fetching NVRTC 13.0 and the CUDA headers from PyPI into .nvrtc/ (about 250 MB: nvidia-cuda-nvrtc,"
echo "nvidia-cuda-runtime, nvidia-cuda-cccl, and nvidia-cuda-crt for WMMA's <mma.h>); once only,"
echo "cargo test then finds them there."
# pip --target does not merge into an existing folder, so an older .nvrtc/ is replaced whole.
rm -rf .nvrtc.partial
python3 -m pip install --quiet --disable-pip-version-check --root-user-action=ignore --no-deps \
    --target .nvrtc.partial nvidia-cuda-nvrtc==13.0.88 nvidia-cuda-runtime==13.0.96 \
    nvidia-cuda-cccl==13.0.85 nvidia-cuda-crt==13.0.88
rm -rf .nvrtc
mv .nvrtc.partial .nvrtc
echo "NVRTC 13.0 installed in .nvrtc/; cargo test will use it."
