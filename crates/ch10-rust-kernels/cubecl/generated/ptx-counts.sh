#!/usr/bin/env bash
# PTX of CubeCL's generated sum_planes (sum_planes.cu.txt) beside the course's sum_shuffle
# (kernels/ch06-block-reduce.cu), both compiled by nvcc for sm_90: what each kernel's loads and
# shuffles became. NVCC: the nvcc to use (default: the one scripts/build-cub-reference.sh unpacks).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$here/../../../..
nvcc=${NVCC:-$root/.cub/nvidia/cu13/bin/nvcc}
include=$root/.nvrtc/nvidia/cu13/include
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$here/sum_planes.cu.txt" "$work/sum_planes.cu"
"$nvcc" -arch=sm_90 -ptx -I"$include" -o "$work/cubecl.ptx" "$work/sum_planes.cu" 2>/dev/null
"$nvcc" -arch=sm_90 -ptx -I"$include" -o "$work/course.ptx" "$root/kernels/ch06-block-reduce.cu"
awk '/entry sum_shuffle/,/^}/' "$work/course.ptx" >"$work/sum_shuffle.ptx"
count() { grep -c "$1" "$2" || true; }
echo "\$ crates/ch10-rust-kernels/cubecl/generated/ptx-counts.sh ($("$nvcc" --version | tail -n2 | head -n1))"
for k in "CubeCL sum_planes:$work/cubecl.ptx" "course sum_shuffle:$work/sum_shuffle.ptx"; do
    name=${k%%:*} ptx=${k#*:}
    echo "$name: $(count 'shfl.sync.down' "$ptx") shfl.sync.down in the PTX," \
        "$(count 'ld.global.nc.v4.f32' "$ptx") 16-byte loads (ld.global.nc.v4.f32)," \
        "$(count 'ld.global' "$ptx") loads from global memory in all," \
        "$(count 'WARP_SZ' "$ptx") reads of the warp size at run time (WARP_SZ)"
done
