#!/usr/bin/env bash
# Each variant of the sweep as a folder for COURSE_KERNELS: kernels/ch09-hopper-gemm.cu with
# its macros (NAME or NAME=VALUE, separated by spaces), variants.cu appended, and hopper_tuned
# renamed so that the variant takes its name.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
kernel=$here/../../../kernels/ch09-hopper-gemm.cu
out=${1:?usage: make-variants.sh OUT_DIR}
variant() {
    local name=$1 stages=$2 macro=$3 m
    mkdir -p "$out/$name"
    {
        for m in $macro; do echo "#define ${m/=/ }"; done
        sed "s/^#define STAGES 4 /#define STAGES $stages /" "$kernel"
        [ -n "$macro" ] && cat "$here/variants.cu"
    } >"$out/$name/ch09-hopper-gemm.cu"
    if [ -n "$macro" ]; then
        sed -i.orig -e 's/ hopper_tuned(/ hopper_tuned_course(/' \
            -e 's/hopper_tuned_variant(/hopper_tuned(/' "$out/$name/ch09-hopper-gemm.cu"
        rm "$out/$name/ch09-hopper-gemm.cu.orig"
    fi
}
variant stages4 4 ""
variant stages3 3 ""
variant persistent 4 PERSISTENT
variant multicast 4 MULTICAST
variant tiles128x128 4 "TILES TILE_M=128 TILE_N=128"
variant tiles128x192 4 "TILES TILE_M=128 TILE_N=192"
variant tiles256x128 4 "TILES TILE_M=256 TILE_N=128"
variant tiles128x256 4 "TILES TILE_M=128 TILE_N=256" # the same kernel as persistent
