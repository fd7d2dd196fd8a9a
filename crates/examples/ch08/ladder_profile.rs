//! The ladder's profile as one table: reads the Nsight Compute log recorded on the GPU machine
//! (`ch08/ncu-sgemm_ladder.log`, `ncu --print-units base`) and prints, per rung, the counters
//! that explain its step. Runs anywhere: it reads a file, not a GPU.
use course::exit::{EXIT_BAD_ARGUMENT, fail};
use course::ncu::read_log;

/// The rungs in the ladder's order: kernel name, the ladder's name for it.
const RUNGS: [(&str, &str); 10] = [
    ("matmul_sum_in_register", "chapter 4 (one per thread)"),
    ("sgemm_rows_across_warp", "rows across a warp"),
    ("sgemm_shared_tiles", "shared-memory tiles"),
    ("sgemm_1d_blocking", "1-D register blocking"),
    ("sgemm_2d_blocking", "2-D register blocking"),
    ("sgemm_vectorised", "vectorised"),
    ("sgemm_conflict_free", "no bank conflicts"),
    ("sgemm_double_buffered", "double-buffered"),
    ("sgemm_warp_tiles_128x128x8_64x32_1", "warp tiles"),
    ("sgemm_async_128x128x8_64x32_3_1", "cp.async, 3 stages"),
];

fn main() {
    course::cli::no_args(
        "Prints the ladder's Nsight Compute profile (ch08/ncu-sgemm_ladder.log) as one table.",
    );
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/ch08/ncu-sgemm_ladder.log");
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| fail(EXIT_BAD_ARGUMENT, &format!("cannot read {path}: {e}.")));
    let kernels = read_log(&text);
    println!("Nsight Compute on the NVIDIA H200, each rung at n=4096 (ch08/ncu-sgemm_ladder.log)");
    println!(
        "{:<28} {:>6} {:>8} {:>7} {:>8} {:>9} {:>9}  {:>7} {:>7} {:>5}",
        "rung", "FMA", "sectors", "L2", "shared", "shared", "bank", "barrier", "memory", "MIO"
    );
    println!(
        "{:<28} {:>6} {:>8} {:>7} {:>8} {:>9} {:>9}  {:>7} {:>7} {:>5}",
        "", "pipe", "per load", "GB", "loads", "wavefront", "conflicts", "stall", "stall", "stall"
    );
    for (kernel, rung) in RUNGS {
        let Some(m) = kernels.get(kernel) else {
            println!("{rung:<28} not in the log");
            continue;
        };
        let get = |name: &str| m.get(name).copied().unwrap_or(f64::NAN);
        let sectors = get("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum")
            / get("l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum");
        let conflicts = get("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum")
            + get("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum");
        let stall = |what: &str| {
            get(&format!(
                "smsp__average_warps_issue_stalled_{what}_per_issue_active.ratio"
            ))
        };
        println!(
            "{rung:<28} {:>5.1}% {:>8.1} {:>7.1} {:>7.0}M {:>8.0}M {:>8.0}M  {:>7.2} {:>7.2} {:>5.2}",
            get("sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active"),
            sectors,
            get("lts__t_bytes.sum") / 1e9,
            get("smsp__inst_executed_op_shared_ld.sum") / 1e6,
            get("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum") / 1e6,
            conflicts / 1e6,
            stall("barrier"),
            stall("long_scoreboard"),
            stall("mio_throttle"),
        );
    }
    println!("FMA pipe: share of cycles the FP32 multiply-add pipe was busy.");
    println!(
        "Sectors per load: 32-byte pieces per warp-wide global load (4 for 32 neighbouring floats)."
    );
    println!(
        "Shared loads: instructions; wavefronts: passes the shared memory needed to serve them."
    );
    println!("Stalls: cycles a warp waited per instruction issued, at a barrier, on global memory");
    println!("(long scoreboard) and on a full shared-memory queue (MIO throttle).");
}
