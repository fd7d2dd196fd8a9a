//! Tests of the `protocol` crate. They live in the checker's package because cargo runs the
//! packages in name order: here they run before the `course` package, whose outputs test ends
//! with the summary of what it skipped, so that summary stays the last thing `cargo test` prints.

use protocol::*;

#[test]
fn a_metric_reads_back_what_it_wrote() {
    let m = Metric {
        program: "adder_sweep".into(),
        label: "adder, n=100000000 f64".into(),
        median_ms: 0.555,
        work: Work::Bytes(2.4e9),
    };
    assert_eq!(Metric::parse(&m.line()), Ok(m.clone()));
    assert!((m.rate() - 2.4e9 / 0.555e-3).abs() < 1.0);
    assert!(Metric::parse("adder\t1.0").is_err());
}

#[test]
fn commands() {
    let line = "$ cargo run --release --bin multi_gpu -- 2";
    assert_eq!(
        parse_command(line),
        Ok(("multi_gpu".into(), vec!["2".into()]))
    );
    assert_eq!(
        parse_command("$ cargo run --release --bin amdahl"),
        Ok(("amdahl".into(), vec![]))
    );
    assert!(parse_command("$ cargo run --bin amdahl").is_err());
}

#[test]
fn files_under_finds_nested_files_of_one_extension() {
    let root = std::env::temp_dir().join(format!("protocol-files-{}", std::process::id()));
    std::fs::create_dir_all(root.join("a/b")).unwrap();
    for name in ["z.txt", "a/y.txt", "a/b/x.txt", "a/b/w.svg"] {
        std::fs::write(root.join(name), "").unwrap();
    }
    let found = files_under(&root, "txt");
    let _ = std::fs::remove_dir_all(&root);
    let names: Vec<_> = found
        .iter()
        .map(|p| p.strip_prefix(&root).unwrap())
        .collect();
    assert_eq!(
        names,
        ["a/b/x.txt", "a/y.txt", "z.txt"].map(std::path::Path::new)
    );
}

#[test]
fn durations_in_milliseconds() {
    let ms = |value, unit| parse_duration_ms(value, unit).unwrap();
    for (got, want) in [
        (ms("1.52", "s"), 1520.0),
        (ms("12.0", "ms"), 12.0),
        (ms("4.5", "µs"), 4.5e-3),
        (ms("4.5", "us"), 4.5e-3),
        (ms("812", "ns"), 812e-6),
    ] {
        assert!((got - want).abs() <= 1e-12 * want, "{got} is not {want}");
    }
    assert_eq!(parse_duration_ms("3.41", "x"), None);
    assert_eq!(parse_duration_ms("fast", "ms"), None);
}
