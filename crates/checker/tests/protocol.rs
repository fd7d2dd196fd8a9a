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
fn commands_with_settings_of_the_environment() {
    let line = "$ COURSE_COMPUTE_CAPABILITY=99.0 cargo run --release --bin dft_coarsening";
    let read = parse_case_command(line).unwrap();
    assert_eq!(
        read.env,
        vec![("COURSE_COMPUTE_CAPABILITY".into(), "99.0".into())]
    );
    assert_eq!((read.bin.as_str(), read.args.len()), ("dft_coarsening", 0));
    assert_eq!(read.line(), line, "the line reads back as it was written");
    // The older reader still finds the program, for the users that need only that.
    assert_eq!(parse_command(line), Ok(("dft_coarsening".into(), vec![])));
    let two = "$ A=1 B_2=x cargo run --release --bin multi_gpu -- 2";
    let read = parse_case_command(two).unwrap();
    assert_eq!(read.env.len(), 2);
    assert_eq!(read.args, vec!["2".to_string()]);
    assert_eq!(read.line(), two);
    let plain = parse_case_command("$ cargo run --release --bin amdahl").unwrap();
    assert!(plain.env.is_empty());
    assert_eq!(plain.line(), "$ cargo run --release --bin amdahl");
    for bad in [
        "$ 9X=1 cargo run --release --bin amdahl",
        "$ A-B=1 cargo run --release --bin amdahl",
        "$ A=1 cargo run --bin amdahl",
        "$ A=1",
        "$ A=1 echo hi",
        "A=1 cargo run --release --bin amdahl",
    ] {
        assert!(parse_case_command(bad).is_err(), "`{bad}`");
    }
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

#[test]
fn the_skips_are_named_by_their_exit_status() {
    assert_eq!(Missing::from_exit_status(EXIT_NO_GPU), Some(Missing::Gpu));
    assert_eq!(
        Missing::from_exit_status(EXIT_TOO_LITTLE_MEMORY),
        Some(Missing::GpuMemory)
    );
    assert_eq!(
        Missing::from_exit_status(EXIT_TOO_FEW_GPUS),
        Some(Missing::MoreGpus)
    );
    assert_eq!(
        Missing::from_exit_status(EXIT_NO_CLUSTERS),
        Some(Missing::Clusters)
    );
    assert_eq!(
        Missing::from_exit_status(EXIT_OLDER_GPU),
        Some(Missing::NewerGpu)
    );
    assert_eq!(
        Missing::from_exit_status(EXIT_NOT_HOPPER),
        Some(Missing::Hopper)
    );
    assert_eq!(
        Missing::GpuMemory.skip("x needs 4 GiB").unwrap(),
        "too little GPU memory: x needs 4 GiB"
    );
    // A failure is never a skip.
    for code in [0, EXIT_CUDA_FAILED, EXIT_BAD_ARGUMENT, 101, 124, 137, -1] {
        assert_eq!(Missing::from_exit_status(code), None, "{code}");
    }
    // Each status is its own.
    let codes = [
        EXIT_NO_GPU,
        EXIT_TOO_LITTLE_MEMORY,
        EXIT_TOO_FEW_GPUS,
        EXIT_NO_CLUSTERS,
        EXIT_OLDER_GPU,
        EXIT_NOT_HOPPER,
    ];
    for (i, a) in codes.iter().enumerate() {
        assert!(codes[i + 1..].iter().all(|b| a != b));
        assert!(![0, EXIT_CUDA_FAILED, EXIT_BAD_ARGUMENT].contains(a));
    }
}
