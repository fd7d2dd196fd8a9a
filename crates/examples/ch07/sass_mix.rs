//! What the GPU runs for steps 9 and 10: the machine code (SASS) of their hot loops, counted by
//! instruction. The SASS is `ch07/mirrors.sm_90.sass`, which `cuobjdump -sass` printed on the
//! H200 machine for `kernels/ch07-imaging-mirrors.cu` compiled by CUDA 13.0 for sm_90 (the
//! encodings left out). No GPU is needed to read it.
use std::collections::BTreeMap;

/// The dump, and the kernels of the steps with the groups of four pixels one pass computes.
const SASS: &str = include_str!("mirrors.sm_90.sass");
const KERNELS: [(&str, usize); 2] = [("image_mirrors", 1), ("image_tables_8", 8)];

/// One instruction: its address and its text without the predicate, such as `FFMA R1, ...`.
fn instructions(function: &str) -> Vec<(u64, &str)> {
    function
        .lines()
        .filter_map(|line| {
            let rest = line.trim().strip_prefix("/*")?;
            let (address, text) = rest.split_once("*/")?;
            let text = text.trim().trim_end_matches(';').trim();
            let text = match text.strip_prefix('@') {
                Some(predicated) => predicated.split_once(' ')?.1.trim(),
                None => text,
            };
            Some((u64::from_str_radix(address, 16).ok()?, text))
        })
        .collect()
}

fn opcode(text: &str) -> &str {
    text.split_whitespace().next().unwrap_or("")
}

// ANCHOR: hot
/// The hot loop, as in the PTX: the innermost loop (a branch back to an address with no other
/// branch target in between) that reads shared memory (LDS) and writes none (STS).
fn hot_loop<'a>(code: &[(u64, &'a str)]) -> Option<Vec<&'a str>> {
    let target = |text: &str| {
        let to = text.strip_prefix("BRA ")?.trim();
        u64::from_str_radix(to.trim_start_matches("0x"), 16).ok()
    };
    let targets: Vec<u64> = code.iter().filter_map(|(_, t)| target(t)).collect();
    let mut found = Vec::new();
    for &(at, text) in code {
        let Some(start) = target(text).filter(|&s| s < at) else {
            continue;
        };
        let innermost = !targets.iter().any(|&t| t > start && t <= at);
        let body: Vec<&str> = code
            .iter()
            .filter(|(a, _)| (start..=at).contains(a))
            .map(|(_, t)| *t)
            .collect();
        let reads = body.iter().any(|t| opcode(t).starts_with("LDS"));
        let writes = body.iter().any(|t| opcode(t).starts_with("STS"));
        if innermost && reads && !writes {
            found.push(body);
        }
    }
    (found.len() == 1).then(|| found.remove(0))
}
// ANCHOR_END: hot

fn main() {
    course::cli::no_args(
        "Counts the instructions in the hot loops of steps 9 and 10, from the SASS cuobjdump printed on the H200 machine.",
    );
    println!("SASS for sm_90 of kernels/ch07-imaging-mirrors.cu (cuobjdump, CUDA 13.0)");
    println!("hot loop = the innermost loop that reads shared memory and writes none");
    for (kernel, groups) in KERNELS {
        let function = SASS
            .split("Function : ")
            .find(|f| f.lines().next().map(str::trim) == Some(kernel))
            .unwrap_or_else(|| course::cli::fail(&format!("the SASS file has no {kernel}")));
        let Some(body) = hot_loop(&instructions(function)) else {
            course::cli::fail(&format!("{kernel} has no single hot loop in its SASS"));
        };
        let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
        for text in &body {
            *counts.entry(opcode(text)).or_default() += 1;
        }
        let pairs = 4 * groups;
        let sum = |prefixes: &[&str]| -> usize {
            counts
                .iter()
                .filter(|(op, _)| prefixes.iter().any(|p| op.starts_with(p)))
                .map(|(_, n)| n)
                .sum()
        };
        let (fp32, mufu) = (sum(&["FFMA", "FMUL", "FADD"]), sum(&["MUFU"]));
        println!();
        println!(
            "{kernel}: {} instructions per pass, {pairs} pairs",
            body.len()
        );
        let list: Vec<String> = counts.iter().map(|(op, n)| format!("{op} {n}")).collect();
        for chunk in list.chunks(6) {
            println!("  {}", chunk.join(", "));
        }
        let per_pair = |n: usize| n as f64 / pairs as f64;
        println!(
            "  per pair: {} instructions, {} FP32 (FFMA, FMUL, FADD), {} MUFU",
            per_pair(body.len()),
            per_pair(fp32),
            per_pair(mufu)
        );
    }
}
