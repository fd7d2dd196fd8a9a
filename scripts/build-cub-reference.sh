#!/usr/bin/env bash
# Builds reference/cub_reference.cu, the program that times CUB beside chapter 8's scan,
# compaction and sort, into target/cub_reference. nvcc 13.0 and CCCL come pinned from PyPI into
# .cub/ (about 150 MB, once), with the CUDA runtime that scripts/install-nvrtc.sh fetches; the
# host compiler is the machine's g++. No GPU is needed to build it. scripts/gpu-bundle.sh puts the
# binary beside the programs when it exists; without it their CUB lines say "-".
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-nvrtc.sh >/dev/null
if [ ! -x .cub/nvidia/cu13/bin/nvcc ]; then
    echo "Fetching nvcc 13.0 from PyPI into .cub/ (nvidia-cuda-nvcc, nvidia-nvvm, nvidia-cuda-crt)."
    python3 -m pip install --quiet --disable-pip-version-check --root-user-action=ignore --no-deps \
        --target .cub nvidia-cuda-nvcc==13.0.88 nvidia-nvvm==13.0.88 nvidia-cuda-crt==13.0.88
fi
cuda=$PWD/.cub/nvidia/cu13
runtime=$PWD/.nvrtc/nvidia/cu13
mkdir -p target
"$cuda/bin/nvcc" -O3 -std=c++17 --extended-lambda -arch=sm_90 \
    -I"$runtime/include" -I"$runtime/include/cccl" -L"$runtime/lib" \
    --cudart static -o target/cub_reference reference/cub_reference.cu
echo "built target/cub_reference"
