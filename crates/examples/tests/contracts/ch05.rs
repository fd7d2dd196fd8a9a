//! The models of chapter 5: shared memory and atomics's kernels.

use super::launchers::*;
use super::model::*;

pub fn hist_shared() -> Model {
    Model {
        kernels: "hist_shared, hist_shared_wide",
        buffers: &["bytes", "bins"],
        mirrors: &[
            ("ch05-histogram.cu", "hist_shared"),
            ("ch05-histogram.cu", "hist_shared_wide"),
        ],
        hash: 0x7c940c7776a9b9d7,
        draw: || one_d(256, 16, |n| vec![n, 256], |_| vec![]),
        contract: |l| {
            derived(ch05_histogram::HistShared::contract(
                "hist_shared",
                &l.config(),
                l.span(0),
                l.span(1),
            ))
        },
        reach: |l, d| {
            let n = d[0].max(0) as u64;
            // The start and stride are unsigned 32-bit products widened afterwards: a stride
            // of 2^32 threads would be 0, and the loop would never end.
            let t = i128::from(l.tx());
            Reach {
                extents: vec![n, u64::from(l.block[0])],
                vectors: vec![true, false],
                ints: vec![
                    ("blockIdx.x * blockDim.x + t (unsigned)", t - 1, UINT_MAX),
                    ("gridDim.x * blockDim.x, not 0 (unsigned)", t, UINT_MAX),
                ],
            }
        },
    }
}

/// Every model of the chapter.
pub fn models() -> Vec<Model> {
    vec![hist_shared()]
}

#[test]
fn hist_shared_stays_inside() {
    prove(hist_shared());
}
