//! Launches that a contract accepted once and refuses now: the findings of issue 34, and the
//! counterexamples the property tests shrank, each as a plain test.

use course::launch::Span;

use super::launchers::*;
use super::model::{at, refused, shape};

/// Keys of length 1000 with values of length 2000 derived n twice, and the second won.
#[test]
fn sort_pairs_of_unequal_lengths_are_refused() {
    refused(
        ch08_sort::RadixPassPairs::contract(
            "radix_pass_pairs",
            &shape((1, 1, 1), 256),
            at(1000),
            at(1000),
            at(2000),
            at(2000),
            0,
            at(256),
            at(256),
            at(1),
            at(1),
        ),
        "len(values_in) = len(keys_in)",
    );
}

/// n = 1, blocks of 1024, 2^21 + 1 blocks: the last thread's index passes 2^31.
#[test]
fn scan_warps_with_more_threads_than_an_int_counts_is_refused() {
    refused(
        ch06_scan::ScanWarps::contract(
            "scan_warps",
            &shape(((1 << 21) + 1, 1, 1), 1024),
            at(1),
            at(1),
        ),
        "threads + len(in) <= 2147483648 (32-bit indices)",
    );
}

/// m = n = k = 8 and 2^24 + 1 blocks along x: blockIdx.x * 128 passes 2^31.
#[test]
fn sgemm_with_a_grid_past_32_bit_indices_is_refused() {
    refused(
        ch08_sgemm::Sgemm2dBlocking::contract(
            "sgemm_2d_blocking",
            &shape(((1 << 24) + 1, 1, 1), 256),
            at(64),
            at(64),
            at(64),
            8,
            8,
            8,
        ),
        "(32-bit indices)",
    );
}

/// Shrunk by the property test: m = n = 0 and k = 2^31 - 1, where k0 += BK overflows.
#[test]
fn sgemm_with_k_near_2_to_the_31_is_refused() {
    refused(
        ch08_sgemm::Sgemm2dBlocking::contract(
            "sgemm_2d_blocking",
            &shape((1, 1, 1), 256),
            at(0),
            at(0),
            at(0),
            0,
            0,
            i32::MAX,
        ),
        "k + 32 <= 2147483648",
    );
}

/// The status word holds a count in 30 bits: 2^30 keys would be sorted wrongly.
#[test]
fn a_sort_of_2_to_the_30_keys_is_refused() {
    let n = 1 << 30;
    refused(
        ch08_sort::RadixPass::contract(
            "radix_pass",
            &shape(((n / 4096) as u32, 1, 1), 256),
            at(n),
            at(n),
            0,
            at(256),
            at(n / 16),
            at(1),
            at(1),
        ),
        "n <= 1073741823",
    );
}

/// 2^24 blocks of 256 threads: the histogram's unsigned stride, 2^32, is 0, and its loop would
/// never end.
#[test]
fn a_histogram_whose_stride_wraps_to_zero_is_refused() {
    refused(
        ch05_histogram::HistShared::contract(
            "hist_shared",
            &shape((1 << 24, 1, 1), 256),
            at(1000),
            at(256),
        ),
        "(32-bit indices)",
    );
}

/// Shrunk by the property test: blocks of one thread, while the kernel strides by 256.
#[test]
fn a_digit_count_with_blocks_of_one_thread_is_refused() {
    refused(
        ch08_sort::RadixHistogram::contract(
            "radix_histogram",
            &shape(((1 << 24) + 1, 1, 1), 1),
            at(2442),
            at(1024),
        ),
        "block.x = 256",
    );
}

/// `&x.slice(1..)`: a view one `u32` in, which the scan's 16-byte loads would fault on.
#[test]
fn a_view_off_the_16_byte_boundary_is_refused_where_the_kernel_loads_vectors() {
    let inside = Span {
        len: 1000,
        address: 0x7f00_0000_0004,
    };
    refused(
        ch08_scan::ScanLookback::contract(
            "scan_lookback",
            &shape((1, 1, 1), 128),
            inside,
            at(1000),
            at(1),
            at(1),
            at(1),
        ),
        "aligned(in, 16)",
    );
}

/// The tile counter is reset by the tile numbered gridDim.x - 1: a second row of blocks would
/// take numbers past the grid.
#[test]
fn a_look_back_scan_on_a_2d_grid_is_refused() {
    refused(
        ch08_scan::ScanLookback::contract(
            "scan_lookback",
            &shape((1, 2, 1), 128),
            at(1000),
            at(1000),
            at(2),
            at(1),
            at(1),
        ),
        "grid.y = 1",
    );
}

/// Found by the property test once its grids came with status words to match: a pass over a
/// few keys on 2^20 tiles, whose `tile * TILE` in an int passes 2^31.
#[test]
fn a_sort_pass_on_more_tiles_than_an_int_can_number_is_refused() {
    refused(
        ch08_sort::RadixPass::contract(
            "radix_pass",
            &shape((1 << 20, 1, 1), 256),
            at(1000),
            at(1000),
            0,
            at(256),
            at(1 << 28),
            at(1),
            at(1),
        ),
        "threads * 16 <= 2147483648",
    );
}
