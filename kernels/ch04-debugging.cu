// Debugging chapter 4: an off-by-one kernel that writes past the end of its output, and a
// copy of it that reports the bad index with printf instead of writing.
// check: squares_off_by_one lacks vprintf
// check: squares_report has vprintf
// launch squares_report: n = len(out); threads.x >= n; threads.x <= 2147483648

// ANCHOR: off_by_one
// out[i] = i * i for the n elements of out. The test should be i < n: with i <= n the thread
// whose index is n writes one element past the end.
extern "C" __global__ void squares_off_by_one(int *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i <= n) {
        out[i] = i * i;
    }
}
// ANCHOR_END: off_by_one

// ANCHOR: report
// The same kernel while being debugged: a thread whose index is past the end prints where it
// is instead of writing.
extern "C" __global__ void squares_report(int *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i <= n) {
        if (i >= n) {
            printf("thread %d of block %d would write out[%d], past the end of %d elements\n",
                   threadIdx.x, blockIdx.x, i, n);
            return;
        }
        out[i] = i * i;
    }
}
// ANCHOR_END: report
