#!/usr/bin/env bash
# Runs chapter 4's launch_findings on the GPU machine: each finding launched unchecked ("raw"),
# in a process of its own, under the compute-sanitizer tool that names what it does (plain where
# the grid is too large for the tool to finish in time), and the sort's pass with waits that
# give up at once under synccheck, with the kernel as it is and as it was before the fix
# (old-kernels/, which scripts/gpu-bundle.sh takes from git). One log per run, in DIR.
#   gpu-bundle/launch-findings.sh DIR
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=$here/bin/launch_findings
out=${1:?give the folder for the logs}
mkdir -p "$out"
run() {
    local name=$1
    shift
    echo "\$ $*" >"$out/$name.log"
    timeout 120 "$@" >>"$out/$name.log" 2>&1
    echo "[exit status: $?]" >>"$out/$name.log"
}
memcheck=(compute-sanitizer --tool memcheck --print-limit 4)
run pairs-lengths "${memcheck[@]}" "$bin" pairs-lengths raw
run unaligned "${memcheck[@]}" "$bin" unaligned raw
run 2d-grid "${memcheck[@]}" "$bin" 2d-grid raw
run stale-status "${memcheck[@]}" "$bin" stale-status raw
# 2^31 and 2^32 threads: memcheck would take hours; the driver's own error names the fault.
run scan-warps-grid "$bin" scan-warps-grid raw
run sgemm-grid "$bin" sgemm-grid raw
run stride-zero "$bin" stride-zero raw
run sort-2-30 "$bin" sort-2-30 raw
synccheck=(compute-sanitizer --tool synccheck --print-limit 4)
run barrier-now "${synccheck[@]}" "$bin" barrier
COURSE_KERNELS=$here/old-kernels run barrier-before "${synccheck[@]}" "$bin" barrier
