// Every thread adds one to the same counter: with a plain += and with an atomic.
// check: count_plain has ld.global.u32
// check: count_plain has st.global.u32
// check: count_plain lacks atom.
// check: count_atomic has atom.global.add.u32
// check: count_atomic lacks ld.global.u32
// launch count_*: len(counter) >= 1

// ANCHOR: counters
extern "C" __global__ void count_plain(unsigned *counter)
{
    counter[0] += 1;                    // load, add, store: three steps another thread can split
}

extern "C" __global__ void count_atomic(unsigned *counter)
{
    atomicAdd(counter, 1u);             // one read-modify-write that nothing can split
}
// ANCHOR_END: counters
