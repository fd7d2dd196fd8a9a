//! The checks `course::tma::TensorMap::tiled` makes before the driver encodes a tensor map: a
//! map it accepts describes a matrix inside its buffer, in the form the driver takes (16-byte
//! pitches and start, boxes of 1 to 256 elements a side, box rows of whole 16-byte chunks within
//! the swizzle's span), and each refusal is one sentence.

use std::cell::Cell;

use course::tma::{MAX_BOX_SIDE, Swizzle, Tiled};
use proptest::prelude::*;

use super::model::{runner, size};

fn swizzle() -> impl Strategy<Value = Swizzle> {
    prop::sample::select(vec![
        Swizzle::None,
        Swizzle::Bytes32,
        Swizzle::Bytes64,
        Swizzle::Bytes128,
    ])
}

/// Matrices and boxes around the ones the course builds (bf16 and float, pitches rounded to 8
/// elements), and anything else.
fn description() -> impl Strategy<Value = (Tiled, usize, usize, u64)> {
    let side = || prop_oneof![4 => 0usize..9000, 1 => size().prop_map(|s| s as usize)];
    let boxed = || prop_oneof![4 => prop::sample::select(vec![8usize, 16, 32, 64, 128, 256]), 1 => 0usize..300];
    (
        side(),
        side(),
        0usize..40,
        boxed(),
        boxed(),
        swizzle(),
        prop::sample::select(vec![2usize, 4]),
        prop_oneof![4 => Just(0u64), 1 => 0u64..64],
        prop_oneof![4 => Just(0i64), 1 => -9000i64..9000],
    )
        .prop_map(
            |(rows, cols, extra, box_rows, box_cols, swizzle, bytes, offset, slack)| {
                let pitch = cols.div_ceil(8) * 8 + extra % 9;
                let needed = rows
                    .saturating_sub(1)
                    .saturating_mul(pitch)
                    .saturating_add(cols);
                let len = (needed as i64).saturating_add(slack).max(0) as usize;
                let tiled = Tiled {
                    rows,
                    cols,
                    pitch,
                    box_rows,
                    box_cols,
                    swizzle,
                };
                (tiled, len, bytes, 0x7f00_0000_0000 + offset)
            },
        )
}

fn span(swizzle: Swizzle) -> usize {
    match swizzle {
        Swizzle::None => usize::MAX,
        Swizzle::Bytes32 => 32,
        Swizzle::Bytes64 => 64,
        Swizzle::Bytes128 => 128,
    }
}

#[test]
fn an_accepted_tensor_map_lies_inside_its_buffer_as_the_driver_takes_it() {
    let (accepted, refused) = (Cell::new(0), Cell::new(0));
    runner("course::tma::Tiled::refusal")
        .run(&description(), |(t, len, bytes, address)| {
            match t.refusal(len, bytes, address) {
                Some(why) => {
                    refused.set(refused.get() + 1);
                    prop_assert!(!why.contains('\n') && !why.ends_with('.'), "{why}");
                }
                None => {
                    accepted.set(accepted.get() + 1);
                    prop_assert!(t.rows >= 1 && t.cols >= 1 && t.pitch >= t.cols);
                    prop_assert!((t.rows - 1) * t.pitch + t.cols <= len);
                    prop_assert!((t.pitch * bytes) % 16 == 0 && address % 16 == 0);
                    prop_assert!((1..=MAX_BOX_SIDE).contains(&t.box_rows));
                    prop_assert!((1..=MAX_BOX_SIDE).contains(&t.box_cols));
                    prop_assert!((t.box_cols * bytes) % 16 == 0);
                    prop_assert!(t.box_cols * bytes <= span(t.swizzle));
                }
            }
            Ok(())
        })
        .unwrap();
    let (accepted, refused) = (accepted.get(), refused.get());
    assert!(
        accepted > 100 && refused > 100,
        "{accepted} accepted, {refused} refused"
    );
}

/// The refusals a learner meets first, each in its own words.
#[test]
fn the_driver_s_rules_are_refused_in_one_sentence() {
    let good = Tiled {
        rows: 100,
        cols: 64,
        pitch: 64,
        box_rows: 64,
        box_cols: 64,
        swizzle: Swizzle::Bytes128,
    };
    let base = 0x7f00_0000_0000;
    assert_eq!(good.refusal(100 * 64, 2, base), None);
    let refusal = |t: Tiled, len: usize| t.refusal(len, 2, base).unwrap_or_default();
    let odd = Tiled {
        cols: 77,
        pitch: 77,
        ..good
    };
    assert!(refusal(odd, 100 * 77).contains("a multiple of 16"));
    let short = Tiled { pitch: 80, ..odd };
    assert!(refusal(short, 99 * 80 + 76).contains("do not fit in a buffer of"));
    assert_eq!(short.refusal(99 * 80 + 77, 2, base), None);
    let wide = Tiled {
        box_cols: 128,
        ..good
    };
    assert!(refusal(wide, 100 * 64).contains("more than the 128-byte swizzle spans"));
    let tall = Tiled {
        box_rows: 257,
        ..good
    };
    assert!(refusal(tall, 100 * 64).contains("from 1 to 256"));
    assert!(
        good.refusal(100 * 64, 2, base + 8)
            .unwrap_or_default()
            .contains("16-byte boundary")
    );
}
