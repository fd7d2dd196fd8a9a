//! The structure in the imaging phase u·l + v·m + w·n′ that a faster kernel can use, checked
//! on the chapter's grid and baselines: n′ is the same for a pixel and its mirror images; the
//! phase is not linear along a row, so a per-pixel recurrence drifts; and four mirrored pixels
//! can share three sine-cosine pairs instead of needing four.
use course::compare::{verdict, within_bound};
use course::imaging::sky::{direction_of, n_minus_one, observe};
use course::random::Rng;
use num_complex::Complex64;
use rayon::prelude::*;
use std::f64::consts::TAU;

/// The chapter's number of visibilities (its GPU runs image 700² pixels × 262,144 of them).
const VISIBILITIES: usize = 1 << 18;
/// Random pixel-visibility pairs on which the shared factors are checked.
const SAMPLES: usize = 1000;

/// The grid index of the mirror image of index `i` (k cells from the centre → −k cells), if it
/// is on the grid. An even side runs from −side/2 to side/2 − 1: index 0 has no mirror.
fn mirror(side: usize, i: usize) -> Option<usize> {
    (2 * (side / 2)).checked_sub(i).filter(|&j| j < side)
}

// ANCHOR: symmetry
/// How many (pixel, mirror image) pairs were compared, and in how many n′ differs (exactly).
fn compare_mirrors(side: usize) -> (usize, usize) {
    let (mut compared, mut differ) = (0, 0);
    for row in 0..side {
        for col in 0..side {
            let (l, m) = direction_of(side, (col, row));
            let nd = n_minus_one(l, m);
            let (mc, mr) = (mirror(side, col), mirror(side, row));
            // (−l, m), (l, −m), (−l, −m) and the transpose (m, l).
            let images = [
                (mc, Some(row)),
                (Some(col), mr),
                (mc, mr),
                (Some(row), Some(col)),
            ];
            for (c, r) in images {
                if let (Some(c), Some(r)) = (c, r) {
                    let (li, mi) = direction_of(side, (c, r));
                    compared += 1;
                    differ += usize::from(n_minus_one(li, mi) != nd);
                }
            }
        }
    }
    (compared, differ)
}
// ANCHOR_END: symmetry

/// Along one row, for one visibility, in turns: the largest second difference of the whole
/// phase and of its u·l term alone, and how far a recurrence that adds the first step at every
/// pixel has drifted at the row's end, for the whole phase and for u·l + v·m alone.
struct RowFindings {
    second_diff: f64,
    second_diff_ul: f64,
    drift: f64,
    drift_linear: f64,
}

// ANCHOR: row
fn along_row(ls: &[f64], m: f64, nds: &[f64], (u, v, w): (f64, f64, f64)) -> RowFindings {
    let phase: Vec<f64> = (0..ls.len())
        .map(|c| u * ls[c] + v * m + w * nds[c])
        .collect();
    let linear: Vec<f64> = ls.iter().map(|&l| u * l + v * m).collect();
    let second = |p: &[f64]| {
        p.windows(3)
            .map(|t| (t[2] - 2.0 * t[1] + t[0]).abs())
            .fold(0.0, f64::max)
    };
    // What advancing e^{2πiφ} by one fixed complex factor per pixel would compute.
    let recur = |p: &[f64]| {
        let (step, mut at) = (p[1] - p[0], p[0]);
        for _ in 1..p.len() {
            at += step;
        }
        (at - p[p.len() - 1]).abs()
    };
    RowFindings {
        second_diff: second(&phase),
        second_diff_ul: second(&ls.iter().map(|&l| u * l).collect::<Vec<_>>()),
        drift: recur(&phase),
        drift_linear: recur(&linear),
    }
}
// ANCHOR_END: row

// ANCHOR: shared
/// The largest |shared product − direct e^{iφ}| over the four mirror images of pixel
/// (col, row) for the visibility (u, v, w): e^{2πi(±ul ± vm + wn′)} computed as
/// e^{2πi wn′}·e^{±2πi ul}·e^{±2πi vm}, three sine-cosine pairs for four pixels.
fn shared_error(side: usize, (col, row): (usize, usize), (u, v, w): (f64, f64, f64)) -> f64 {
    let (l, m) = direction_of(side, (col, row));
    let wn = Complex64::from_polar(1.0, TAU * w * n_minus_one(l, m));
    let ul = Complex64::from_polar(1.0, TAU * u * l);
    let vm = Complex64::from_polar(1.0, TAU * v * m);
    let (mc, mr) = (mirror(side, col).unwrap(), mirror(side, row).unwrap());
    let images = [
        ((col, row), ul, vm),
        ((mc, row), ul.conj(), vm),
        ((col, mr), ul, vm.conj()),
        ((mc, mr), ul.conj(), vm.conj()),
    ];
    images
        .iter()
        .map(|&(pixel, ul, vm)| {
            let (li, mi) = direction_of(side, pixel);
            let direct = TAU * (u * li + v * mi + w * n_minus_one(li, mi));
            (wn * ul * vm - Complex64::from_polar(1.0, direct)).norm()
        })
        .fold(0.0, f64::max)
}
// ANCHOR_END: shared

fn main() {
    let (side, seed) = course::cli::parse(
        "Finds the structure in the imaging phase that several pixels can share.",
        |args| {
            (
                args.usize("SIDE", "the image side in pixels", 700, 4, 4096),
                args.seed(),
            )
        },
    );
    let obs = observe(VISIBILITIES, None);
    let (half, cell) = (
        side / 2,
        direction_of(side, (1, 0)).0 - direction_of(side, (0, 0)).0,
    );
    println!(
        "{side} x {side} pixels, columns and rows from -{half} to {} cells; {VISIBILITIES} visibilities",
        side - 1 - half
    );

    println!("1. n' = sqrt(1 - l^2 - m^2) - 1 depends on l^2 + m^2 only");
    let (compared, differ) = compare_mirrors(side);
    println!(
        "   pixel and mirror image pairs compared {compared}, with a different n' {differ}: {}",
        verdict(differ == 0)
    );

    println!(
        "2. along row 0 (m = {:.4}), for every visibility, in turns",
        direction_of(side, (0, 0)).1
    );
    let ls: Vec<f64> = (0..side).map(|c| direction_of(side, (c, 0)).0).collect();
    let m = direction_of(side, (0, 0)).1;
    let nds: Vec<f64> = ls.iter().map(|&l| n_minus_one(l, m)).collect();
    let rows: Vec<RowFindings> = (0..VISIBILITIES)
        .into_par_iter()
        .map(|j| along_row(&ls, m, &nds, (obs.u[j], obs.v[j], obs.w[j])))
        .collect();
    let largest = |f: fn(&RowFindings) -> f64| rows.iter().map(f).fold(0.0, f64::max);
    let w_max = obs.w.iter().fold(0.0f64, |a, &w| a.max(w.abs()));
    println!(
        "   largest |w| {w_max:.1} wavelengths, cell {cell:.3e}: |w| x cell^2 = {:.1e} turns",
        w_max * cell * cell
    );
    let (line, _) = within_bound(
        "   largest second difference of u*l alone (rounding)",
        largest(|r| r.second_diff_ul),
        1e-9,
    );
    println!("{line}");
    let curve = largest(|r| r.second_diff);
    println!(
        "   largest second difference of the whole phase {curve:.1e}, more than 1e-6 (not negligible): {}",
        verdict(curve > 1e-6)
    );
    let (line, _) = within_bound(
        "   drift of a recurrence on u*l + v*m after the row",
        largest(|r| r.drift_linear),
        1e-9,
    );
    println!("{line}");
    let drift = largest(|r| r.drift);
    println!(
        "   drift of a recurrence on the whole phase after the row {drift:.2}, more than 0.01 (wrong): {}",
        verdict(drift > 0.01)
    );

    println!("3. four mirror images share e^(2 pi i w n'), e^(+-2 pi i u l), e^(+-2 pi i v m)");
    let mut rng = Rng::new(seed);
    println!("   seed {seed}");
    let mut worst = 0.0f64;
    for _ in 0..SAMPLES {
        let mut draw = || loop {
            let i = rng.below(side as u64) as usize;
            if mirror(side, i).is_some() {
                break i;
            }
        };
        let pixel = (draw(), draw());
        let j = rng.below(VISIBILITIES as u64) as usize;
        worst = worst.max(shared_error(side, pixel, (obs.u[j], obs.v[j], obs.w[j])));
    }
    let (line, _) = within_bound(
        &format!("   largest |shared - direct| over {SAMPLES} pixels x 4 images"),
        worst,
        1e-12,
    );
    println!("{line}");

    let on_grid = |i: usize| mirror(side, i).is_some();
    let mirrored = (0..side * side)
        .filter(|&p| on_grid(p % side) && on_grid(p / side))
        .count();
    let formula = if side % 2 == 0 {
        (side - 1).pow(2)
    } else {
        side.pow(2)
    };
    println!(
        "   pixels with all three mirror images on the grid {mirrored}, formula {formula}: {}",
        verdict(mirrored == formula)
    );
    let which = if side % 2 == 0 {
        format!(" (the column and the row at -{half} cells)")
    } else {
        String::new()
    };
    println!("   pixels without them{which} {}", side * side - mirrored);
    // On the axes (l = 0 or m = 0) a mirror image is the pixel itself: no group of four.
    let off_axis = |i: usize| on_grid(i) && i != half;
    let quads = (0..side * side)
        .filter(|&p| off_axis(p % side) && off_axis(p / side))
        .count();
    let k = (side - 1) / 2;
    println!(
        "   pixels in groups of four distinct images {quads}, 4 x {k}^2 = {}: {}",
        4 * k * k,
        verdict(quads == 4 * k * k)
    );
    println!(
        "   sine-cosine pairs per visibility for the image {} instead of {}",
        side * side - quads / 4,
        side * side
    );
}
