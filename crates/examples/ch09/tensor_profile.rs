//! The tensor-core ladder's profile as one table: reads the Nsight Compute log recorded on the
//! GPU machine (`ch09/ncu-bf16_ladder.log`, `ncu --print-units base`) and prints, per rung, the
//! counters that explain its step. Runs anywhere: it reads a file, not a GPU.
use course::exit::{EXIT_BAD_ARGUMENT, fail};
use course::ncu::read_log;

/// The rungs in the ladder's order: kernel name, the ladder's name for it.
const RUNGS: [(&str, &str); 7] = [
    ("bf16_wmma", "WMMA"),
    ("bf16_mma_plain", "mma.sync + ldmatrix"),
    ("bf16_mma_swizzled", "swizzled"),
    ("bf16_mma_pipelined_128x128x32_4", "cp.async, 4 stages"),
    ("bf16_mma_pipelined_128x128x64_3", "64 deep, 3 stages"),
    ("bf16_mma_pipelined_128x256x64_3", "128x256 tiles"),
    ("bf16_mma_ahead_128x256x64_3", "fragments a step ahead"),
];

fn main() {
    course::cli::no_args(
        "Prints the tensor-core ladder's Nsight Compute profile (ch09/ncu-bf16_ladder.log) as one table.",
    );
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/ch09/ncu-bf16_ladder.log");
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| fail(EXIT_BAD_ARGUMENT, &format!("cannot read {path}: {e}.")));
    let gpu = text
        .lines()
        .find_map(|l| l.strip_prefix("GPU: "))
        .and_then(|l| l.split(" (").next())
        .unwrap_or("an unnamed GPU");
    let kernels = read_log(&text);
    println!("Nsight Compute on the {gpu}, each rung at n=4096 (ch09/ncu-bf16_ladder.log)");
    // ANCHOR: table
    println!(
        "{:<24} {:>7} {:>8} {:>9} {:>9} {:>8}  {:>7} {:>7} {:>5}",
        "rung", "tensor", "ldmatrix", "shared", "bank", "warps", "barrier", "memory", "MIO"
    );
    println!(
        "{:<24} {:>7} {:>8} {:>9} {:>9} {:>8}  {:>7} {:>7} {:>5}",
        "", "pipe", "loads", "wavefront", "conflicts", "active", "stall", "stall", "stall"
    );
    for (kernel, rung) in RUNGS {
        let Some(m) = kernels.get(kernel) else {
            println!("{rung:<24} not in the log");
            continue;
        };
        let get = |name: &str| m.get(name).copied().unwrap_or(f64::NAN);
        let stall = |what: &str| {
            get(&format!(
                "smsp__average_warps_issue_stalled_{what}_per_issue_active.ratio"
            ))
        };
        println!(
            "{rung:<24} {:>6.1}% {:>7.0}M {:>8.0}M {:>8.0}M {:>7.1}%  {:>7.2} {:>7.2} {:>5.2}",
            get("sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active"),
            get("smsp__inst_executed_op_ldsm.sum") / 1e6,
            get("l1tex__data_pipe_lsu_wavefronts_mem_shared.sum") / 1e6,
            get("l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum") / 1e6,
            get("sm__warps_active.avg.pct_of_peak_sustained_active"),
            stall("barrier"),
            stall("long_scoreboard"),
            stall("mio_throttle"),
        );
    }
    // ANCHOR_END: table
    println!("Tensor pipe: share of cycles the SMs' tensor cores were busy.");
    println!("ldmatrix loads: instructions (WMMA loads its fragments with plain shared loads).");
    println!("Shared wavefronts: passes the shared memory needed for all its loads and stores;");
    println!("bank conflicts: the extra passes among them.");
    println!("Warps active: resident warps, as a share of the most an SM holds.");
    println!("Stalls: cycles a warp waited per instruction issued, at a barrier, on global memory");
    println!("(long scoreboard) and on a full shared-memory queue (MIO throttle).");
}
