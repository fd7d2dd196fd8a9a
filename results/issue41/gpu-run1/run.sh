#!/bin/bash
# Issue 40's remaining GPU work (sweep, mbarrier mutant, TMA challenge, ncu bytes, fresh seeds)
# and chapter 10's ownership programs, in one call.
cd "$(dirname "$0")"
H=$PWD
began=$SECONDS
O=/tmp/o; mkdir -p $O
at() { echo "--- at $((SECONDS - began)) s: $*" | tee -a $O/steps.txt; tar czf $OUT/all.tgz -C $O .; }
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader | tee $O/sweep.log
# 1. The sweep: each variant of hopper_tuned at 4096 and 8192.
for v in stages4 stages3 persistent multicast; do
  for s in 4096 8192; do
    echo "=== hopper $v $s"
    COURSE_KERNELS=$H/var/$v timeout 25 ./bundle/bin/hopper_ladder $s $s $s > /tmp/h.txt 2>&1; rc=$?
    tail -7 /tmp/h.txt; echo "rc=$rc"
  done
done >> $O/sweep.log 2>&1
at
# 2. The GPU mutants of chapter 9, the new fault mutant among them.
(cd bundle && timeout 100 ./gpu-check --mutations --out /tmp/mut > /tmp/mutrun.txt 2>&1; cp /tmp/mut/mutations.txt $O/mutations.txt)
at
# 3. The TMA challenge: the solutions, then learners' attempts.
{ echo "=== judge ch09 --solutions"; timeout 60 ./bundle/judge ch09 --solutions --seed 7 2>&1 | tail -6
  for v in learner/*; do
    echo "=== learner $(basename $v)"
    COURSE_KERNELS=$H/$v timeout 40 ./bundle/judge ch09 tma --seed 7 --time-limit 25 2>&1 | tail -3
  done
  echo "=== starter"; timeout 40 ./bundle/judge ch09 tma --seed 7 --time-limit 25 2>&1 | tail -3
} > $O/judge.txt 2>&1
at
# 5. Nsight Compute: TMA bytes per Hopper rung, and for the multicast variant.
M=gpu__time_duration.sum,sm__inst_executed_pipe_tensor_op_gmma.sum,sm__inst_executed_pipe_tma.sum,l1tex__m_xbar2l1tex_read_bytes_mem_global_op_tma_ld.sum,lts__t_sectors_srcunit_tex_op_read.sum,dram__bytes_read.sum
{ echo "\$ ncu --clock-control none --print-units base --metrics $M --kernel-id ::regex:^hopper_:3 hopper_ladder"
  timeout 40 ncu --clock-control none --print-units base --metrics $M --kernel-id ::regex:^hopper_:3 ./bundle/bin/hopper_ladder 2>&1
} > $O/ncu-tma.log
at
# 7. The challenge's solution under the sanitizer's tools.
for tool in memcheck synccheck racecheck; do
  echo "=== $tool"
  timeout 22 compute-sanitizer --tool $tool --target-processes all ./bundle/judge ch09 tma --solutions --seed 7 2>&1 | tail -3
done > $O/sanitizer-tma.txt 2>&1
at
# 8. Chapter 10: the CubeCL kernels against their C++ twins, on CUDA.
cd $H/ch10
for c in "adder:adder" "adder-edge:adder 67108863" "reduce:reduce" "reduce-edge:reduce 67108867" \
         "histogram:histogram" "histogram-tail:histogram 268435459" "tiles:tiles"; do
  f=${c%%:*}; a=${c#*:}
  { echo "\$ cargo run --release --bin cubecl_kernels -- $a --runtime cuda"; timeout 40 ./cubecl_kernels $a --runtime cuda 2>&1; } > $O/ch10-$f.gpu.txt
done
COURSE_MUTANT=reduce-half-plane timeout 40 ./cubecl_kernels reduce --runtime cuda > $O/ch10-mutant-reduce.txt 2>&1; echo "rc=$?" >> $O/ch10-mutant-reduce.txt
COURSE_MUTANT=histogram-no-tail timeout 40 ./cubecl_kernels histogram 268435459 --runtime cuda > $O/ch10-mutant-hist.txt 2>&1; echo "rc=$?" >> $O/ch10-mutant-hist.txt
{ for m in "" plane-quarter plane-warp-32; do echo "=== judge ch10 plane, mutant '$m'"; env ${m:+COURSE_MUTANT=$m} timeout 30 ./judge ch10 plane --runtime cuda --seed 7 2>&1 | tail -2; echo "rc=$?"; done
  echo "=== --solutions"; timeout 30 ./judge ch10 plane --solutions --runtime cuda --seed 7 2>&1 | tail -2; } > $O/ch10-judge.txt 2>&1
CUBECL_DEBUG_LOG=$O/cubecl-compile.log CUBECL_DEBUG_OPTION=debug timeout 40 ./cubecl_kernels reduce --runtime cuda > $O/ch10-debug-run.txt 2>&1
at ch10
cd $H
# 4. Chapter 10's ownership programs.
for p in copy_in_flight freed_in_flight two_streams_one_buffer; do
  { echo "\$ cargo run --release --bin $p"; timeout 20 own/$p 2>&1; echo "rc=$?"; } > $O/$p.gpu.txt
done
at
cd $H
cat $O/steps.txt; cat $O/mutations.txt $O/judge.txt | cut -c1-300; grep -E "^===|TFLOP|rc=" $O/sweep.log | head -80; cat $O/ch10-reduce.gpu.txt $O/ch10-adder.gpu.txt
