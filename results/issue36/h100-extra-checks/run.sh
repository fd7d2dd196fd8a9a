#!/bin/bash
# The last checks on the GPU: the local judge's fault hint, a kernel that keeps its answer,
# timed runs of parts whose plan depends on the seed, and the plain-HTTP client.
cd "$(dirname "$0")"
echo "### 1. local judge, a solution kernel that faults (COURSE_KERNELS=faulty)"
COURSE_KERNELS=$PWD/faulty ./judge --solutions --seed 7 ch05 block_sum | tee j1.txt
hint=$(grep -o 'compute-sanitizer .*' j1.txt | head -1)
echo "### 1b. the hint's command: $hint"
if [ -n "$hint" ]; then
    PATH=$PATH:/usr/local/cuda/bin COURSE_KERNELS=$PWD/faulty timeout 120 $hint 2>&1 | grep -E "Invalid|ERROR SUMMARY|at .*block|Address" | head -6
fi
echo "### 2. a kernel that keeps its first answer in a __device__ array"
./judge --run-submission < caching-correctness.json
./judge --run-submission < caching-timed.json
echo "### 3. timed runs of the course's solutions whose plan depends on the seed"
for ex in "ch04 bounds_check" "ch04 dft_gpu" "ch04 matmul_2d" "ch04 which_faster"; do
    echo "$ex: $(./judge --solution-job $ex | ./judge --run-submission)"
done
echo "### 4. the plain-HTTP client against the server"
./course-server add-learner --db s.db ada > tok.txt
./course-server --listen 127.0.0.1:18081 --db s.db > srv.log 2>&1 &
sleep 2
./judge --solutions --seed 7 --remote http://127.0.0.1:18081 --token "$(awk '{print $2}' tok.txt)" ch04 dft_gpu
kill %1
