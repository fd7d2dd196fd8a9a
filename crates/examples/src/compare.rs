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
