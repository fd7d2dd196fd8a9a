#!/bin/bash
# Issue 40: the sweep's tile shapes. Each variant of hopper_tuned (results/issue40/sweep) at
# 4096 and 8192 through COURSE_KERNELS, with the course's kernel and the persistent variant
# again as the run's own baselines; and ptxas's registers and spills for each variant.
cd "$(dirname "$0")"  # carried as gpu-run14/: bin/hopper_ladder, var/ (make-variants.sh), b10/ (chapter 10 of scripts/gpu-bundle.sh)
H=$PWD; export PATH=$PATH:/usr/local/cuda/bin
O=/tmp/o14; rm -rf $O; mkdir -p $O
began=$SECONDS
at() { echo "--- at $((SECONDS - began)) s: $*" | tee -a $O/steps.txt; tar czf $OUT/all.tgz -C $O .; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader | tee $O/gpu.txt
for v in tiles128x128 tiles128x192 tiles256x128 tiles128x256 persistent; do
  echo "=== $v"
  nvcc -gencode arch=compute_90a,code=sm_90a -std=c++17 --ptxas-options=-v -c -o /dev/null var/$v/ch09-hopper-gemm.cu 2>&1 |
    grep -E -A3 "entry function 'hopper_tuned'|error"
done > $O/ptxas.txt 2>&1
at ptxas
for v in stages4 tiles128x128 tiles128x192 tiles256x128 tiles128x256 persistent; do
  for s in 4096 8192; do
    echo "=== hopper $v $s"
    COURSE_KERNELS=$H/var/$v timeout 30 ./bin/hopper_ladder $s $s $s > /tmp/h.txt 2>&1; rc=$?
    tail -7 /tmp/h.txt; echo "rc=$rc"
    if [ $rc != 0 ] && [ ! -e $O/sanitize-$v.txt ]; then
      COURSE_KERNELS=$H/var/$v timeout 60 compute-sanitizer --print-limit 3 ./bin/hopper_ladder 256 256 256 2>&1 | head -60 > $O/sanitize-$v.txt
    fi
  done
  at $v
done >> $O/sweep.log 2>&1
# Chapter 10's programs through the GPU check (scripts/gpu-bundle.sh now bundles them).
(cd b10 && timeout 150 ./gpu-check --out $O/check10 > $O/check10.txt 2>&1; echo "rc=$?" >> $O/check10.txt)
at ch10
cat $O/steps.txt $O/ptxas.txt; tail -15 $O/check10.txt; grep -E "^===|in flight|cuBLAS BF16  |rc=|within" $O/sweep.log
