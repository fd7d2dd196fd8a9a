//! The command line of every program: optional positional arguments, `--seed N`, `--help`.
//!
//! A program reads its arguments in one closure given to [`parse`], before it does any work:
//!
//! ```no_run
//! let (n, seed) = course::cli::parse("Adds two arrays with rayon.", |args| {
//!     (args.usize("N", "the array length", 1_000_000, 1, 200_000_000), args.seed())
//! });
//! ```
//!
//! The same calls that read the arguments describe them, so `--help` prints a usage that
//! cannot drift from the code: with `--help` every call returns its default, and [`parse`]
//! prints the usage and exits 0 before the program starts. A value out of range, an unknown
//! option or a surplus argument gets one sentence and exit status [`EXIT_BAD_ARGUMENT`].

pub use protocol::EXIT_BAD_ARGUMENT;

/// The seed of the random inputs when the command line gives none. Every run with it draws the
/// same inputs, so its output can be compared number for number with the book.
pub const DEFAULT_SEED: u64 = 2026;

/// What the closure given to [`parse`] reads the command line through.
pub struct Args {
    positional: Vec<String>,
    next: usize,
    seed: Option<String>,
    help: bool,
    usage: Vec<String>,
    lines: Vec<String>,
}

impl Args {
    fn from_words(words: Vec<String>) -> Args {
        let mut args = Args {
            positional: Vec::new(),
            next: 0,
            seed: None,
            help: false,
            usage: Vec::new(),
            lines: Vec::new(),
        };
        let mut words = words.into_iter();
        while let Some(word) = words.next() {
            match word.as_str() {
                "--help" | "-h" => args.help = true,
                "--seed" => match words.next() {
                    Some(value) => args.seed = Some(value),
                    None => fail("`--seed` needs a value, a whole number"),
                },
                _ if word.starts_with("--seed=") => args.seed = Some(word[7..].to_string()),
                _ if word.starts_with("--") => fail(&format!(
                    "there is no option `{word}`; `--help` lists the arguments"
                )),
                _ => args.positional.push(word),
            }
        }
        args
    }

    fn take(&mut self) -> Option<String> {
        if self.help {
            return None;
        }
        let word = self.positional.get(self.next).cloned();
        if word.is_some() {
            self.next += 1;
        }
        word
    }

    fn describe(&mut self, usage: String, line: String) {
        self.usage.push(usage);
        self.lines.push(line);
    }

    /// The next positional argument, a whole number in `min..=max`; `default` when absent.
    /// `1_000`, `1000` and `1e3` all read as a thousand.
    pub fn usize(
        &mut self,
        name: &str,
        what: &str,
        default: usize,
        min: usize,
        max: usize,
    ) -> usize {
        self.describe(
            format!("[{name}]"),
            format!("{name:<14} {what}, {min} to {max} (default {default})"),
        );
        match self.take() {
            None => default,
            Some(text) => check_range(&text, what, min, max),
        }
    }

    /// The next positional argument, a whole number in `min..=max`, if there is one.
    pub fn optional_usize(
        &mut self,
        name: &str,
        what: &str,
        min: usize,
        max: usize,
    ) -> Option<usize> {
        self.describe(
            format!("[{name}]"),
            format!("{name:<14} {what}, {min} to {max} (optional)"),
        );
        self.take().map(|text| check_range(&text, what, min, max))
    }

    /// The next positional argument, a path that must be given. With `--help` it is empty.
    pub fn path(&mut self, name: &str, what: &str) -> String {
        self.describe(name.to_string(), format!("{name:<14} {what} (required)"));
        if self.help {
            return String::new();
        }
        self.take()
            .unwrap_or_else(|| fail(&format!("give {what}; `--help` says more")))
    }

    /// The next positional argument if it is one of `choices` (consumed), `None` if there is
    /// none; any other word is refused with one sentence naming the choices.
    pub fn choice(&mut self, name: &str, what: &str, choices: &[&str]) -> Option<String> {
        self.describe(
            format!("[{name}]"),
            format!("{name:<14} {what}: {}", choices.join(", ")),
        );
        let word = self.take()?;
        if !choices.contains(&word.as_str()) {
            fail(&format!(
                "{what} must be one of {}, not `{word}`",
                choices.join(", ")
            ));
        }
        Some(word)
    }

    /// Whether the next positional argument is the word `word` (consumed if so).
    pub fn word(&mut self, word: &str, what: &str) -> bool {
        self.describe(format!("[{word}]"), format!("{word:<14} {what}"));
        if self.help || self.positional.get(self.next).map(String::as_str) != Some(word) {
            return false;
        }
        self.next += 1;
        true
    }

    /// The seed of the random inputs: `--seed N`, or [`DEFAULT_SEED`].
    pub fn seed(&mut self) -> u64 {
        self.describe(
            "[--seed N]".into(),
            format!(
                "{:<14} seed of the random inputs (default {DEFAULT_SEED})",
                "--seed N"
            ),
        );
        match &self.seed {
            None => DEFAULT_SEED,
            Some(text) => parse_u64(text)
                .unwrap_or_else(|| fail(&format!("the seed must be a whole number, not `{text}`"))),
        }
    }

    fn finish(self, program: &str, about: &str) {
        if self.help {
            println!("Usage: {program} {}", self.usage.join(" ").trim_end());
            println!("{about}");
            for line in &self.lines {
                println!("  {line}");
            }
            println!("  {:<14} print this help", "--help");
            std::process::exit(0);
        }
        if let Some(extra) = self.positional.get(self.next) {
            let expected = match self.next {
                0 => "no arguments".to_string(),
                1 => "at most 1 argument".to_string(),
                n => format!("at most {n} arguments"),
            };
            fail(&format!(
                "`{extra}` is one argument too many: {program} takes {expected}; `--help` lists them"
            ));
        }
        if self.seed.is_some() && !self.usage.iter().any(|u| u == "[--seed N]") {
            fail(&format!(
                "{program} draws no random numbers, so it takes no `--seed`"
            ));
        }
    }
}

/// The program's name: the file name of its path on the command line (`amdahl`).
pub fn program_name() -> String {
    std::env::args()
        .next()
        .and_then(|p| {
            std::path::Path::new(&p)
                .file_name()
                .map(|f| f.to_string_lossy().into_owned())
        })
        .unwrap_or_default()
}

/// Read the command line with `read`, which describes and reads every argument; answer
/// `--help` with the usage, and refuse unknown or surplus arguments, before returning.
pub fn parse<T>(about: &str, read: impl FnOnce(&mut Args) -> T) -> T {
    let mut args = Args::from_words(std::env::args().skip(1).collect());
    let value = read(&mut args);
    args.finish(&program_name(), about);
    value
}

/// For a program that takes no arguments: answers `--help` and refuses any argument.
pub fn no_args(about: &str) {
    parse(about, |_| ())
}

fn check_range(text: &str, what: &str, min: usize, max: usize) -> usize {
    match parse_usize(text) {
        Some(v) if (min..=max).contains(&v) => v,
        _ => fail(&format!(
            "{what} must be a whole number from {min} to {max}, not `{text}`"
        )),
    }
}

/// Accepts `1000`, `1_000` and `1e6` (the last only for whole numbers).
pub fn parse_usize(text: &str) -> Option<usize> {
    parse_u64(text).and_then(|v| usize::try_from(v).ok())
}

fn parse_u64(text: &str) -> Option<u64> {
    let clean: String = text.chars().filter(|&c| c != '_').collect();
    if let Ok(v) = clean.parse::<u64>() {
        return Some(v);
    }
    let (mantissa, exponent) = clean.split_once(['e', 'E'])?;
    let m: u64 = mantissa.parse().ok()?;
    let e: u32 = exponent.parse().ok()?;
    m.checked_mul(10u64.checked_pow(e)?)
}

/// Print one sentence about a bad argument and exit with [`EXIT_BAD_ARGUMENT`].
pub fn fail(sentence: &str) -> ! {
    crate::exit::fail(EXIT_BAD_ARGUMENT, &format!("{sentence}."))
}

/// The one argument of a program that draws several figures (`figures_ch05 banks`): the name of
/// the figure to draw, one of `names`; without one, a sentence that lists them, and status 2.
pub fn figure_name(about: &str, names: &[&str]) -> String {
    let name = parse(about, |args| {
        args.choice("FIGURE", "the figure to draw", names)
    });
    name.unwrap_or_else(|| {
        fail(&format!(
            "name the figure to draw, one of {}",
            names.join(", ")
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(list: &[&str]) -> Vec<String> {
        list.iter().map(|w| w.to_string()).collect()
    }

    #[test]
    fn positionals_seed_and_defaults() {
        let mut a = Args::from_words(words(&["5", "--seed", "7"]));
        assert_eq!(a.usize("N", "n", 1, 1, 10), 5);
        assert_eq!(a.usize("M", "m", 3, 1, 10), 3);
        assert_eq!(a.seed(), 7);
        assert_eq!(a.usage, ["[N]", "[M]", "[--seed N]"]);
        let mut p = Args::from_words(words(&["out.txt"]));
        assert_eq!(p.path("FILE", "the file"), "out.txt");
        let mut c = Args::from_words(words(&["sort"]));
        assert_eq!(
            c.choice("F", "f", &["scan", "sort"]).as_deref(),
            Some("sort")
        );
        assert_eq!(c.choice("G", "g", &["x"]), None);
        let mut b = Args::from_words(words(&["svg"]));
        assert!(b.word("svg", "draw"));
        assert_eq!(b.optional_usize("K", "k", 1, 9), None);
        assert_eq!(b.seed(), DEFAULT_SEED);
    }

    #[test]
    fn help_returns_defaults() {
        let mut a = Args::from_words(words(&["4", "--help"]));
        assert!(a.help);
        assert_eq!(a.usize("N", "n", 1, 1, 10), 1);
    }

    #[test]
    fn numbers() {
        assert_eq!(parse_usize("1_000"), Some(1000));
        assert_eq!(parse_usize("1e6"), Some(1_000_000));
        assert_eq!(parse_usize("abc"), None);
        assert_eq!(parse_usize("-1"), None);
    }
}
