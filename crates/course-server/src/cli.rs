//! The command line: `serve` (the default), `add-learner` and `export`.
use std::path::PathBuf;
use std::time::Duration;

pub const USAGE: &str = "\
course-server: judges a workshop's GPU exercises, sent from learners' laptops (judge --remote)

usage:
  course-server [serve] --listen ADDR [--db FILE] [--runner PATH] [--cert PEM --key PEM]
                [--correctness-runs N] [--time-limit SECONDS] [--timed-limit SECONDS]
                [--queue-cap N]
  course-server add-learner NAME [NAME...] [--db FILE]
  course-server export [--db FILE] [--out FILE.csv]

  --listen ADDR           address and port to serve on, e.g. 0.0.0.0:8080 (port 0: any free one)
  --db FILE               the SQLite file that holds all state (default course-server.sqlite)
  --runner PATH           the judge that runs submissions (default: `judge` beside this program)
  --cert PEM --key PEM    serve HTTPS with this certificate chain and key (else plain HTTP)
  --correctness-runs N    correctness runs at once on the GPU (default 2)
  --time-limit SECONDS    wall-clock limit of one correctness run (default 20)
  --timed-limit SECONDS   wall-clock limit of one timed run: eleven checked launches (default 120)
  --queue-cap N           submissions one learner may have waiting (default 5)
  --out FILE.csv          where export writes (default: standard output)
";

pub enum Command {
    Help,
    Serve(Serve),
    AddLearner { names: Vec<String>, db: PathBuf },
    Export { db: PathBuf, out: Option<PathBuf> },
}

pub struct Serve {
    pub listen: String,
    pub db: PathBuf,
    pub runner: Option<PathBuf>,
    pub tls: Option<(PathBuf, PathBuf)>,
    pub correctness_runs: usize,
    pub time_limit: Duration,
    pub timed_limit: Duration,
    pub queue_cap: u32,
}

const DEFAULT_DB: &str = "course-server.sqlite";

/// Parses the arguments (without the program's name); `Err` is one sentence.
pub fn parse(args: &[String]) -> Result<Command, String> {
    if args.iter().any(|a| a == "--help" || a == "-h") {
        return Ok(Command::Help);
    }
    let (command, rest) = match args.first().map(String::as_str) {
        Some(c @ ("serve" | "add-learner" | "export")) => (c, &args[1..]),
        _ => ("serve", args),
    };
    let mut options = Options::split(rest)?;
    let db = options
        .take("--db")
        .map_or_else(|| PathBuf::from(DEFAULT_DB), PathBuf::from);
    let parsed = match command {
        "add-learner" => {
            if options.words.is_empty() {
                return Err("add-learner needs at least one NAME".into());
            }
            for name in &options.words {
                check_name(name)?;
            }
            Command::AddLearner {
                names: std::mem::take(&mut options.words),
                db,
            }
        }
        "export" => Command::Export {
            db,
            out: options.take("--out").map(PathBuf::from),
        },
        _ => {
            let listen = options
                .take("--listen")
                .ok_or("serve needs --listen ADDR, e.g. --listen 0.0.0.0:8080")?;
            let tls = match (options.take("--cert"), options.take("--key")) {
                (Some(cert), Some(key)) => Some((cert.into(), key.into())),
                (None, None) => None,
                _ => {
                    return Err(
                        "--cert and --key go together: give both for HTTPS, or neither".into(),
                    );
                }
            };
            let time_limit: u64 = options.number("--time-limit", 20)?;
            let timed_limit: u64 = options.number("--timed-limit", 120)?;
            Command::Serve(Serve {
                listen,
                db,
                runner: options.take("--runner").map(PathBuf::from),
                tls,
                correctness_runs: options.number("--correctness-runs", 2)?,
                time_limit: Duration::from_secs(time_limit),
                timed_limit: Duration::from_secs(timed_limit),
                queue_cap: options.number("--queue-cap", 5)?,
            })
        }
    };
    if let Some(word) = options.words.first() {
        return Err(format!("{command} takes no argument `{word}`"));
    }
    if let Some(name) = options.values.first().map(|(n, _)| n) {
        return Err(format!("{command} takes no option {name}"));
    }
    Ok(parsed)
}

fn check_name(name: &str) -> Result<(), String> {
    let ok = !name.is_empty()
        && name.len() <= 40
        && !name.starts_with('-')
        && name
            .chars()
            .all(|c| c.is_alphanumeric() || "._-".contains(c));
    if ok {
        Ok(())
    } else {
        Err(format!(
            "a learner's name is 1 to 40 letters, digits, dots, dashes or underscores, not `{name}`"
        ))
    }
}

/// `--name VALUE` (or `--name=VALUE`) pairs and the words between them.
struct Options {
    values: Vec<(String, String)>,
    words: Vec<String>,
}

const KNOWN: [&str; 9] = [
    "--listen",
    "--db",
    "--runner",
    "--cert",
    "--key",
    "--correctness-runs",
    "--time-limit",
    "--queue-cap",
    "--out",
];

impl Options {
    fn split(args: &[String]) -> Result<Options, String> {
        let mut values = Vec::new();
        let mut words = Vec::new();
        let mut args = args.iter();
        while let Some(arg) = args.next() {
            if !arg.starts_with("--") {
                words.push(arg.clone());
                continue;
            }
            let (name, value) = match arg.split_once('=') {
                Some((name, value)) => (name.to_string(), Some(value.to_string())),
                None => (arg.clone(), None),
            };
            if !KNOWN.contains(&name.as_str()) {
                return Err(format!(
                    "there is no option {name} (course-server --help lists them)"
                ));
            }
            let value = match value.or_else(|| args.next().cloned()) {
                Some(v) => v,
                None => return Err(format!("{name} needs a value")),
            };
            if values.iter().any(|(n, _)| *n == name) {
                return Err(format!("{name} is given twice"));
            }
            values.push((name, value));
        }
        Ok(Options { values, words })
    }

    fn take(&mut self, name: &str) -> Option<String> {
        let at = self.values.iter().position(|(n, _)| n == name)?;
        Some(self.values.remove(at).1)
    }

    fn number<T: std::str::FromStr + PartialOrd + From<u8>>(
        &mut self,
        name: &str,
        default: T,
    ) -> Result<T, String> {
        match self.take(name) {
            None => Ok(default),
            Some(text) => match text.parse::<T>() {
                Ok(n) if n >= T::from(1) => Ok(n),
                _ => Err(format!(
                    "{name} takes a whole number of at least 1, not `{text}`"
                )),
            },
        }
    }
}
