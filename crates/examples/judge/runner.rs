//! The workshop server's side of the judge: `judge --run-submission` judges one submission
//! (a `Job` on standard input) and prints its `RunnerReply` as the last line of output. The
//! kernel is compiled by a process of its own, under limits on memory and processor time, and
//! may include only the CUDA headers the course's kernels use (`course::includes`).
use std::io::{Read, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use course::gpu::{NoGpu, find_gpu};
use course::kernel::{KernelFile, arch_of, compile, nvrtc_present};
use cudarc::nvrtc::Ptx;
use protocol::remote::{Job, RunnerReply};

use course::includes::check_includes;

use crate::exercise::{Gpu, GpuPart, Verdict, judge};
use crate::part::{reply, time_gpu_part};

/// NVRTC's limits: virtual memory (KiB, for `ulimit -v`), processor seconds, wall seconds.
const COMPILE_MEMORY_KIB: u64 = 4 << 20;
const COMPILE_CPU_S: u64 = 60;
const COMPILE_WALL: Duration = Duration::from_secs(90);
/// The largest job read from standard input.
const MAX_JOB_BYTES: u64 = 2 << 20;

/// `judge --compile ARCH NAME`: compiles the kernel text on standard input and prints its
/// PTX; NVRTC's log goes to standard error with exit status 1.
pub fn compile_from_stdin(arch: &str, name: &str) -> ! {
    let mut text = String::new();
    if std::io::stdin().read_to_string(&mut text).is_err() {
        eprintln!("the kernel is not UTF-8 text");
        std::process::exit(1)
    }
    let file = KernelFile {
        name: leak(name.to_string()),
        source: leak(text),
    };
    match compile(&file, arch, false) {
        Ok(ptx) => {
            print!("{}", ptx.to_src());
            std::process::exit(0)
        }
        Err(log) => {
            eprintln!("{log}");
            std::process::exit(1)
        }
    }
}

/// Compiles `file` in a child process under NVRTC's limits.
fn compile_limited(file: &KernelFile, arch: &str) -> Result<Ptx, String> {
    let me = std::env::current_exe().map_err(|e| format!("could not find the judge: {e}"))?;
    let limits = format!(
        "ulimit -v {COMPILE_MEMORY_KIB} && ulimit -t {COMPILE_CPU_S} && exec \"$0\" \"$@\""
    );
    let mut child = Command::new("sh")
        .args(["-c", &limits])
        .arg(me)
        .args(["--compile", arch, file.name])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("could not start the compiler's process: {e}"))?;
    let mut stdin = child.stdin.take().expect("piped");
    let text = file.source.to_string();
    let writer = std::thread::spawn(move || stdin.write_all(text.as_bytes()));
    let out = read_all(child.stdout.take().expect("piped"));
    let err = read_all(child.stderr.take().expect("piped"));
    let began = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().map_err(|e| e.to_string())? {
            break status;
        }
        if began.elapsed() > COMPILE_WALL {
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!(
                "NVRTC ran past {} s on kernels/{}",
                COMPILE_WALL.as_secs(),
                file.name
            ));
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let _ = writer.join();
    let (out, err) = (
        out.join().unwrap_or_default(),
        err.join().unwrap_or_default(),
    );
    if status.success() {
        return Ok(Ptx::from_src(out));
    }
    let log = err.trim_end();
    Err(match log.is_empty() {
        true => format!(
            "NVRTC stopped on kernels/{} ({status}): past its limit of {} GiB of memory or {} s?",
            file.name,
            COMPILE_MEMORY_KIB >> 20,
            COMPILE_CPU_S
        ),
        false => log.to_string(),
    })
}

/// Reads a pipe to its end on a thread of its own, keeping at most 8 MiB.
fn read_all(pipe: impl Read + Send + 'static) -> std::thread::JoinHandle<String> {
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = pipe.take(8 << 20).read_to_end(&mut bytes);
        String::from_utf8_lossy(&bytes).into_owned()
    })
}

/// A string that lives as long as the process, as a kernel file's text must: this process
/// judges one submission and ends.
fn leak(text: String) -> &'static str {
    Box::leak(text.into_boxed_str())
}

/// The longest verdict line sent back (a compiler's log of many errors is cut to this): the
/// server keeps the last 64 KiB of a run's output, of which the reply is the last line.
const MAX_LINE: usize = 16 << 10;

/// Prints the reply as the last line and ends the process.
fn answer(mut reply: RunnerReply) -> ! {
    if reply.line.len() > MAX_LINE {
        let mut end = MAX_LINE;
        while !reply.line.is_char_boundary(end) {
            end -= 1;
        }
        reply.line.truncate(end);
        reply.line.push_str("\n... (the rest is cut)");
    }
    let line = serde_json::to_string(&reply).expect("a reply is JSON");
    println!("{line}");
    let _ = std::io::stdout().flush();
    std::process::exit(0)
}

fn refuse(why: String) -> ! {
    answer(reply(Verdict::Failed(why), None))
}

/// `judge --run-submission`.
pub fn run_submission(find: impl Fn(&str, &str) -> Option<GpuPart>) -> ! {
    let mut text = String::new();
    if std::io::stdin()
        .take(MAX_JOB_BYTES)
        .read_to_string(&mut text)
        .is_err()
    {
        refuse("the job is not UTF-8 text".into());
    }
    let job: Job = serde_json::from_str(&text)
        .unwrap_or_else(|e| refuse(format!("the job is not a submission's JSON ({e})")));
    let Some(part) = find(&job.chapter, &job.exercise) else {
        refuse(format!(
            "{} {} has no GPU part that a server can judge",
            job.chapter, job.exercise
        ));
    };
    if let Err(why) = check_includes(&job.kernel) {
        refuse(why);
    }
    if !job.kernel_name.ends_with(".cu") || job.kernel_name.contains('/') {
        refuse(format!("`{}` is not a kernel file's name", job.kernel_name));
    }
    let file = KernelFile {
        name: leak(job.kernel_name.clone()),
        source: leak(job.kernel.clone()),
    };
    let ctx = match find_gpu() {
        Ok(ctx) => ctx,
        Err(failed @ NoGpu::Failed { .. }) => refuse(failed.sentence()),
        Err(why) => {
            let verdict = match nvrtc_present() {
                false => Verdict::Skipped(format!("no GPU on the server ({why}), and no NVRTC")),
                true => match compile_limited(&file, "sm_90") {
                    Err(log) => Verdict::Failed(log),
                    Ok(_) => Verdict::Skipped(format!(
                        "no GPU on the server ({why}); kernels/{} compiles with NVRTC",
                        file.name
                    )),
                },
            };
            answer(reply(verdict, None))
        }
    };
    let ptx = compile_limited(&file, &arch_of(&ctx)).unwrap_or_else(|log| refuse(log));
    let module = ctx
        .load_module(ptx)
        .unwrap_or_else(|e| refuse(format!("the GPU refused kernels/{}: {e}", file.name)));
    let gpu = Gpu {
        stream: ctx.default_stream(),
        module,
        times: job.timed.then(|| std::cell::RefCell::new(Vec::new())),
    };
    if job.timed {
        let seed = job.seeds.last().copied().unwrap_or(1);
        match time_gpu_part(&part, &gpu, &job.plan, seed) {
            Ok(timing) => answer(reply(Verdict::Passed, timing)),
            Err(why) => refuse(format!("in the timed run, {why}")),
        }
    }
    let sources = [(file.name, file.source)];
    let verdict = judge(&sources, job.todo.clone(), &job.seeds, |seed| {
        (part.check)(&gpu, seed, &job.plan)
    });
    answer(reply(verdict, None))
}
