//! Draws the memory hierarchy of the book's GPU with the sizes its driver reported
//! (`device_query`'s recorded output) and the copy bandwidth `ceilings` measured. Prints the SVG.
use course::cli::fail;
use course::plot::{Drawing, IDLE, PALE};

/// The value of the line `key: value (this machine)`, without the marker.
fn value<'a>(text: &'a str, key: &str, path: &str) -> &'a str {
    text.lines()
        .find_map(|l| l.strip_prefix(key))
        .map(|v| v.trim().trim_end_matches("(this machine)").trim())
        .unwrap_or_else(|| fail(&format!("{path} has no line `{key} ...`")))
}

fn main() {
    let (query_path, ceilings_path) = course::cli::parse(
        "Draws the memory hierarchy (SVG) from device_query's and ceilings' recorded outputs.",
        |args| {
            (
                args.path("QUERY", "the recorded output of device_query"),
                args.path("CEILINGS", "the recorded output of ceilings"),
            )
        },
    );
    let read = |path: &str| {
        std::fs::read_to_string(path).unwrap_or_else(|e| fail(&format!("cannot read {path}: {e}")))
    };
    let (query, ceilings) = (read(&query_path), read(&ceilings_path));
    let gpu = value(&query, "GPU:", &query_path);
    let gpu = gpu.split(" (").next().unwrap_or(gpu);
    let sms = value(&query, "streaming multiprocessors (SMs):", &query_path);
    let registers: f64 = value(&query, "32-bit registers per SM:", &query_path)
        .parse()
        .unwrap_or_else(|_| fail("the register count is not a number"));
    let shared = value(&query, "shared memory per SM:", &query_path);
    let l2 = value(&query, "L2 cache:", &query_path);
    let device = value(&query, "device memory:", &query_path);
    // `device-to-device copy of 1 GiB: 516 µs median of 20, 4163 GB/s`
    let copy = value(&ceilings, "device-to-device copy of 1 GiB:", &ceilings_path);
    let copy = copy.rsplit(", ").next().unwrap_or(copy);

    let mut d = Drawing::new(760.0, 400.0, &format!("The memory hierarchy of the {gpu}"));
    // Three SMs drawn, the rest elided.
    for k in 0..3 {
        let x = 40.0 + 190.0 * k as f64;
        d.rect(x, 45.0, 170.0, 135.0, "white");
        d.text(x + 85.0, 62.0, "middle", &format!("SM {k}"));
        d.rect(x + 10.0, 72.0, 150.0, 42.0, PALE[0]);
        let kib = registers * 4.0 / 1024.0;
        d.text(x + 85.0, 89.0, "middle", &format!("registers: {kib} KiB"));
        d.text(x + 85.0, 105.0, "middle", "split among its threads");
        d.rect(x + 10.0, 124.0, 150.0, 46.0, PALE[3]);
        d.text(
            x + 85.0,
            142.0,
            "middle",
            &format!("shared memory: {shared}"),
        );
        d.text(x + 85.0, 159.0, "middle", "in the same storage as L1");
    }
    d.text_sized(625.0, 110.0, "middle", 20.0, "…");
    d.text(690.0, 106.0, "middle", &format!("{sms} SMs"));
    d.text(690.0, 122.0, "middle", "in all");
    for k in 0..3 {
        let x = 125.0 + 190.0 * k as f64;
        d.arrow((x, 205.0), (x, 182.0), "#333");
        d.arrow((x, 182.0), (x, 205.0), "#333");
    }
    d.rect(40.0, 207.0, 680.0, 44.0, PALE[2]);
    d.text(
        380.0,
        226.0,
        "middle",
        &format!("L2 cache: {l2}, one for all the SMs"),
    );
    d.text(
        380.0,
        243.0,
        "middle",
        "every thread's loads and stores pass through it",
    );
    d.arrow((380.0, 274.0), (380.0, 253.0), "#333");
    d.arrow((380.0, 253.0), (380.0, 274.0), "#333");
    d.rect(40.0, 276.0, 680.0, 44.0, PALE[1]);
    d.text(
        380.0,
        295.0,
        "middle",
        &format!("global (device) memory, HBM: {device}"),
    );
    d.text(
        380.0,
        312.0,
        "middle",
        &format!("device-to-device copy measured at {copy}"),
    );
    d.arrow((380.0, 343.0), (380.0, 322.0), "#333");
    d.arrow((380.0, 322.0), (380.0, 343.0), "#333");
    d.rect(40.0, 345.0, 680.0, 40.0, IDLE);
    d.text(
        380.0,
        369.0,
        "middle",
        "host memory: reached only by copies over PCIe or NVLink-C2C",
    );
    println!("<!-- drawn by `memory_diagram {query_path} {ceilings_path}` -->");
    print!("{}", d.to_svg());
}
