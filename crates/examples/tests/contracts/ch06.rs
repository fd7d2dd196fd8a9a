//! The models of chapter 6: warps and synchronisation's kernels.

use super::launchers::*;
use super::model::*;

pub fn scan_warps() -> Model {
    Model {
        kernels: "scan_warps",
        buffers: &["in", "out"],
        mirrors: &[("ch06-scan.cu", "warp_scan")],
        hash: 0xf5199b11049237ab,
        draw: || one_d(256, 1, |n| vec![n, n], |_| vec![]),
        contract: |l| {
            derived(ch06_scan::ScanWarps::contract(
                "scan_warps",
                &l.config(),
                l.span(0),
                l.span(1),
            ))
        },
        reach: |l, d| one_per_thread(l, d[0], 2),
    }
}

pub fn block_partials() -> Model {
    Model {
        kernels: "block_partials",
        buffers: &["x", "partials"],
        mirrors: &[
            ("ch06-cooperative.cu", "block_sum"),
            ("ch06-cooperative.cu", "two_kernels"),
        ],
        hash: 0x587713407062fa7b,
        draw: || one_d(256, 8, |n| vec![n, ceil(n, 2048).max(1)], |_| vec![]),
        contract: |l| {
            derived(ch06_cooperative::BlockPartials::contract(
                "block_partials",
                &l.config(),
                l.span(0),
                l.span(1),
            ))
        },
        reach: |l, d| {
            let threads = l.threads();
            let (extent, last) = grid_stride(threads, d[0]);
            Reach {
                extents: vec![extent, u64::from(l.grid[0])],
                vectors: vec![false; 2],
                ints: vec![
                    ("(int)grid.thread_rank()", i128::from(threads) - 1, INT_MAX),
                    ("i += (int)grid.num_threads()", last, INT_MAX),
                ],
            }
        },
    }
}

/// Every model of the chapter.
pub fn models() -> Vec<Model> {
    vec![scan_warps(), block_partials()]
}

#[test]
fn scan_warps_stays_inside() {
    prove(scan_warps());
}

#[test]
fn block_partials_stays_inside() {
    prove(block_partials());
}
