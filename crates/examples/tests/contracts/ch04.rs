//! The models of chapter 4: first kernels's kernels.

use super::launchers::*;
use super::model::*;

pub fn adder() -> Model {
    Model {
        kernels: "adder",
        buffers: &["xs", "ys", "zs"],
        mirrors: &[("ch04-adder.cu", "adder")],
        hash: 0x9e11b27bc3c5397d,
        draw: || one_d(256, 1, |n| vec![n; 3], |_| vec![]),
        contract: |l| {
            derived(ch04_adder::Adder::contract(
                "adder",
                &l.config(),
                l.span(0),
                l.span(1),
                l.span(2),
            ))
        },
        reach: |l, d| one_per_thread(l, d[0], 3),
    }
}

pub fn adder_grid_stride() -> Model {
    Model {
        kernels: "adder_grid_stride, adder_grid_stride_raw",
        buffers: &["xs", "ys", "zs"],
        mirrors: &[
            ("ch04-grids.cu", "helpers"),
            ("ch04-grids.cu", "grid_stride"),
            ("ch04-grids.cu", "grid_stride_raw"),
        ],
        hash: 0x85350c74e147eae7,
        draw: || one_d(256, 4, |n| vec![n; 3], |_| vec![]),
        contract: |l| {
            derived(ch04_grids::AdderGridStride::contract(
                "adder_grid_stride",
                &l.config(),
                l.span(0),
                l.span(1),
                l.span(2),
            ))
        },
        reach: |l, d| {
            let (extent, last) = grid_stride(l.tx(), d[0]);
            Reach {
                extents: vec![extent; 3],
                vectors: vec![false; 3],
                ints: vec![
                    ("i += gridDim.x * blockDim.x", last, INT_MAX),
                    ("the stride", i128::from(l.tx()), INT_MAX),
                ],
            }
        },
    }
}

pub fn reduce_sum() -> Model {
    Model {
        kernels: "sum_racy, sum_atomic_per_thread",
        buffers: &["xs", "total"],
        mirrors: &[
            ("ch04-reduce.cu", "partial"),
            ("ch04-reduce.cu", "racy"),
            ("ch04-reduce.cu", "atomic"),
        ],
        hash: 0x8fef8cb5bdbe207f,
        draw: || one_d(256, 8, |n| vec![n, 1], |_| vec![]),
        contract: |l| {
            derived(ch04_reduce::SumRacy::contract(
                "sum_racy",
                &l.config(),
                l.span(0),
                l.span(1),
            ))
        },
        reach: |l, d| {
            let n = d[0].max(0);
            let s = i128::from(l.tx());
            Reach {
                extents: vec![n as u64, 1],
                vectors: vec![false; 2],
                // The unrolled loop tests i + 3 * stride < n; its i can end one stride past n.
                ints: vec![
                    ("i + 3 * stride", i128::from(n) + 4 * s - 1, INT_MAX),
                    ("4 * stride", 4 * s, INT_MAX),
                ],
            }
        },
    }
}

/// Every model of the chapter.
pub fn models() -> Vec<Model> {
    vec![adder(), adder_grid_stride(), reduce_sum()]
}

#[test]
fn adder_stays_inside() {
    prove(adder());
}

#[test]
fn adder_grid_stride_stays_inside() {
    prove(adder_grid_stride());
}

#[test]
fn reduce_sum_stays_inside() {
    prove(reduce_sum());
}
