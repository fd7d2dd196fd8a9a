//! The models of chapter 9's second challenge, the transpose fed by the TMA
//! (kernels/ch09-tma-transpose.cu and its starter, kernels/ch09-exercise-tma.cu).
//!
//! `in` reaches the kernels only through its tensor map, whose copies the hardware keeps inside
//! the rows × cols the map describes: no launch argument moves them. The writers (threads 32 to
//! 159 of a block) write `out[col * rows + row]` in `size_t` for `row = 32 blockIdx.x + r`,
//! `r < 32`, and `col = 32 i + c`, `c < 32`, over the boxes, only where
//! `row < rows` and `col < cols`, one float at a time; `row0` and `32 i + c` are `int`s, and
//! `i < cols / 32 + (cols % 32 != 0)`. The boxes and barriers are static shared memory. The starter's producer is empty, and
//! its writers reach the same floats.

use super::launchers::*;
use super::model::*;
use proptest::prelude::*;

const BOX: u64 = 32;

/// Blocks of 160 threads covering the rows in bands of 32, around the rows and columns each
/// launch is drawn for, empty, small, ragged or huge, the columns also at `int`'s end.
fn draw() -> BoxedStrategy<Launch> {
    let rows = prop_oneof![1 => Just(0u64), 1 => Just(1u64), 6 => 0u64..5000, 1 => size()];
    let cols = prop_oneof![
        6 => 0u64..5000,
        1 => prop::sample::select(vec![(1u64 << 31) - 32, (1 << 31) - 31, (1 << 31) - 1]),
        1 => size(),
    ];
    (rows, cols)
        .prop_flat_map(|(rows, cols)| {
            around(
                [ceil(rows, BOX), 1, 1],
                [160, 1, 1],
                vec![rows.saturating_mul(cols).min(1 << 40)],
                vec![rows as i64, cols as i64],
            )
        })
        .boxed()
}

fn reach(l: &Launch) -> Reach {
    let [rows, cols] = [l.args[0], l.args[1]].map(|v| v.max(0) as u64);
    let gx = u64::from(l.grid[0]);
    // The rows some block covers, inside `out`'s rows.
    let covered = (gx * BOX).min(rows);
    let last = if covered > 0 && cols > 0 {
        (cols - 1).saturating_mul(rows).saturating_add(covered)
    } else {
        0
    };
    let boxes = cols.div_ceil(BOX);
    Reach {
        extents: vec![last],
        vectors: vec![false],
        ints: vec![
            (
                "row0 + 31 (row0 = blockIdx.x * 32)",
                i128::from(gx * BOX) - 1,
                INT_MAX,
            ),
            (
                "32 i + c, the last box's last column",
                i128::from(boxes * BOX) - 1,
                INT_MAX,
            ),
        ],
    }
}

macro_rules! transpose_model {
    ($kernel:literal, $module:ident :: $launcher:ident, $file:literal, $hash:literal) => {
        Model {
            kernels: $kernel,
            buffers: &["out"],
            mirrors: &[($file, "writers")],
            hash: $hash,
            draw,
            contract: |l| {
                $module::$launcher::contract($kernel, &l.config(), l.span(0), l.arg(0)?, l.arg(1)?)
                    .map(|()| vec![])
            },
            reach: |l, _| reach(l),
        }
    };
}

pub fn tma_transpose() -> Model {
    transpose_model!(
        "tma_transpose",
        ch09_tma_transpose::TmaTranspose,
        "ch09-tma-transpose.cu",
        0x553c0963e643bef0
    )
}

pub fn tma_transpose_exercise() -> Model {
    transpose_model!(
        "tma_transpose_exercise",
        ch09_exercise_tma::TmaTransposeExercise,
        "ch09-exercise-tma.cu",
        0x553c0963e643bef0
    )
}

/// Every model of the challenge.
pub fn models() -> Vec<Model> {
    vec![tma_transpose(), tma_transpose_exercise()]
}

#[test]
fn tma_transpose_stays_inside() {
    prove(tma_transpose());
}

#[test]
fn tma_transpose_exercise_stays_inside() {
    prove(tma_transpose_exercise());
}
