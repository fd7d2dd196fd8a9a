//! Optional positional arguments, checked, with one clear sentence when they are wrong.

/// The `index`-th argument (1-based) as a whole number in `min..=max`, or `default` when absent.
/// A bad value prints one sentence and exits with status 2.
pub fn arg_usize(index: usize, name: &str, default: usize, min: usize, max: usize) -> usize {
    let Some(text) = std::env::args().nth(index) else {
        return default;
    };
    match parse_usize(&text) {
        Some(v) if (min..=max).contains(&v) => v,
        _ => fail(&format!(
            "{name} must be a whole number from {min} to {max}, not `{text}`"
        )),
    }
}

/// The `index`-th argument as a seed for the random inputs, or `default` when absent.
pub fn arg_seed(index: usize, default: u64) -> u64 {
    let Some(text) = std::env::args().nth(index) else {
        return default;
    };
    parse_usize(&text)
        .map(|v| v as u64)
        .unwrap_or_else(|| fail(&format!("the seed must be a whole number, not `{text}`")))
}

/// Accepts `1000`, `1_000` and `1e6` (the last only for whole numbers).
pub fn parse_usize(text: &str) -> Option<usize> {
    let clean: String = text.chars().filter(|&c| c != '_').collect();
    if let Ok(v) = clean.parse::<usize>() {
        return Some(v);
    }
    let (mantissa, exponent) = clean.split_once(['e', 'E'])?;
    let m: usize = mantissa.parse().ok()?;
    let e: u32 = exponent.parse().ok()?;
    m.checked_mul(10usize.checked_pow(e)?)
}

/// Print one sentence about a bad argument and exit with status 2.
pub fn fail(sentence: &str) -> ! {
    eprintln!("Error: {sentence}.");
    std::process::exit(2)
}
