//! Comparing a result with its reference: exactly for integers, by relative norm for floats.

/// `‖got − want‖₂ / ‖want‖₂`, computed in f64. NaN anywhere gives NaN, which fails every check.
pub fn relative_error<T: Copy + Into<f64>>(got: &[T], want: &[T]) -> f64 {
    assert_eq!(got.len(), want.len(), "compared slices differ in length");
    let (mut diff, mut norm) = (0.0f64, 0.0f64);
    for (&g, &w) in got.iter().zip(want) {
        let (g, w) = (g.into(), w.into());
        diff += (g - w) * (g - w);
        norm += w * w;
    }
    if norm == 0.0 {
        diff.sqrt()
    } else {
        (diff / norm).sqrt()
    }
}

/// The largest |a − b| over two lists of complex pixels (re, im), divided by `peak`; NaN if any
/// pixel is NaN (`f64::max` would skip it, and an unwritten, poisoned pixel would pass).
pub fn largest_difference(a: &[[f64; 2]], b: &[[f64; 2]], peak: f64) -> f64 {
    a.iter()
        .zip(b)
        .map(|(x, y)| (x[0] - y[0]).hypot(x[1] - y[1]))
        .fold(0.0, |w: f64, d| if d.is_nan() || d > w { d } else { w })
        / peak
}

/// The same for two `f32` images, computed in `f32`, over the peak of `b`'s real part.
pub fn largest_difference_f32(a: &[[f32; 2]], b: &[[f32; 2]]) -> f64 {
    let peak = b.iter().map(|z| z[0]).fold(f32::MIN, f32::max);
    let worst = a
        .iter()
        .zip(b)
        .map(|(x, y)| (x[0] - y[0]).hypot(x[1] - y[1]))
        .fold(0.0, |w: f32, d| if d.is_nan() || d > w { d } else { w });
    f64::from(worst / peak)
}

/// How many elements differ, for results that must match exactly.
pub fn count_mismatches<T: PartialEq>(got: &[T], want: &[T]) -> usize {
    assert_eq!(got.len(), want.len(), "compared slices differ in length");
    got.iter().zip(want).filter(|(g, w)| g != w).count()
}

/// `"yes"` or `"NO"`, for lines such as `matches the CPU: yes`.
pub fn verdict(ok: bool) -> &'static str {
    if ok { "yes" } else { "NO" }
}

/// The line of a check that a value stays within its bound, in the form the output checker
/// reads (`largest error 8.9e-6, bound 1e-5: yes`), and whether it does. NaN never passes.
pub fn within_bound(what: &str, value: f64, bound: f64) -> (String, bool) {
    let ok = value.abs() <= bound; // false for NaN
    (
        format!("{what} {value:.1e}, bound {bound:.0e}: {}", verdict(ok)),
        ok,
    )
}
