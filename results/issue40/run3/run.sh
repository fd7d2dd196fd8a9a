#!/bin/bash
# Issue 40: the judge that names its kernel by the file it judges, on chapters 8 and 9, and the
# solutions under memcheck and initcheck, whole outputs kept.
cd "$(dirname "$0")/bundle"  # the release judge, built and stripped here, carried as gpu-run13/bundle
O=/tmp/o; mkdir -p $O
began=$SECONDS
at() { echo "--- at $((SECONDS - began)) s: $*" | tee -a $O/steps.txt; tar czf $OUT/all.tgz -C $O .; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $O/gpu.txt
{ for c in ch08 ch09; do
    echo "=== judge $c --solutions --seed 7"; timeout 100 ./judge $c --solutions --seed 7 2>&1; echo "rc=$?"
    echo "=== judge $c --seed 7 (the starters)"; timeout 100 ./judge $c --seed 7 --time-limit 25 2>&1; echo "rc=$?"
  done; } > $O/judge.txt 2>&1
at judge
for c in ch09 ch08; do for tool in memcheck initcheck; do
  { echo "\$ compute-sanitizer --tool $tool --target-processes all ./judge $c --solutions --seed 7"
    timeout 150 compute-sanitizer --tool $tool --target-processes all ./judge $c --solutions --seed 7 2>&1; echo "rc=$?"; } > $O/sanitizer-$c-$tool.txt
  at $c $tool
done; done
cat $O/steps.txt; cat $O/judge.txt | cut -c1-250; for f in $O/sanitizer-*; do echo "## $f"; grep -E "ERROR SUMMARY|passed|rc=|Error|error" $f | head -12; done
