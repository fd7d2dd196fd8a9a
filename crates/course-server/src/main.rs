//! course-server: the workshop room's GPU machine judges learners' GPU exercises for them.
//! See `course-server --help`, and crates/protocol/src/remote.rs for the messages.
mod catalogue;
mod cli;
mod db;
mod export;
mod http;
mod queue;
mod runner;
mod tls;

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::{Arc, Mutex};

use cli::Command;

/// Why the program stops: a sentence, and 2 for a bad argument or 1 for anything else.
struct Stop(u8, String);

fn bad_argument(sentence: impl Into<String>) -> Stop {
    Stop(2, sentence.into())
}

fn failure(sentence: impl Into<String>) -> Stop {
    Stop(1, sentence.into())
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let done = match cli::parse(&args) {
        Err(sentence) => Err(bad_argument(sentence)),
        Ok(Command::Help) => {
            print!("{}", cli::USAGE);
            Ok(())
        }
        Ok(Command::Serve(serve_args)) => serve(serve_args),
        Ok(Command::AddLearner { names, db }) => add_learners(&names, &db),
        Ok(Command::Export { db, out }) => export(&db, out.as_ref()),
    };
    match done {
        Ok(()) => ExitCode::SUCCESS,
        Err(Stop(code, sentence)) => {
            eprintln!("course-server: {sentence}");
            ExitCode::from(code)
        }
    }
}

fn runner_path(given: Option<PathBuf>) -> Result<PathBuf, Stop> {
    if let Some(path) = given {
        // Absolute: each run starts in a directory of its own.
        return if path.is_file() {
            std::path::absolute(&path)
                .map_err(|e| failure(format!("could not resolve {}: {e}", path.display())))
        } else {
            Err(bad_argument(format!(
                "there is no runner at {}",
                path.display()
            )))
        };
    }
    let beside = std::env::current_exe()
        .map(|exe| exe.with_file_name("judge"))
        .map_err(|e| failure(format!("could not find this program's own path: {e}")))?;
    if beside.is_file() {
        Ok(beside)
    } else {
        Err(bad_argument(format!(
            "there is no judge beside this program ({}); build it with `cargo build --release --bin judge` or pass --runner",
            beside.display()
        )))
    }
}

fn serve(args: cli::Serve) -> Result<(), Stop> {
    let program = runner_path(args.runner)?;
    let fingerprint = catalogue::fingerprint(&program).map_err(failure)?;
    let exercises = catalogue::exercises(&program).map_err(failure)?;
    let conn = db::open(&args.db).map_err(failure)?;
    runner::remove_stale_run_dirs();

    let bell = Arc::new(queue::Bell::default());
    let runner = Arc::new(runner::LocalProcess {
        program: program.clone(),
    });
    let queue = Arc::new(queue::Queue::new(
        args.db.clone(),
        runner,
        runner::Limits {
            wall: args.time_limit,
            timed_wall: args.timed_limit,
        },
        args.correctness_runs,
        program.clone(),
        exercises.clone(),
        bell.clone(),
    ));
    queue.recover(&conn).map_err(|e| {
        failure(format!(
            "could not put unfinished submissions back in the queue: {e}"
        ))
    })?;

    let listener = std::net::TcpListener::bind(&args.listen)
        .map_err(|e| failure(format!("could not listen on {}: {e}", args.listen)))?;
    let address = listener
        .local_addr()
        .map_err(|e| failure(format!("could not read the address listened on: {e}")))?;
    listener
        .set_nonblocking(true)
        .map_err(|e| failure(format!("could not set up the listener: {e}")))?;

    queue.start().map_err(failure)?;
    let app = Arc::new(http::App {
        db: Mutex::new(conn),
        fingerprint: fingerprint.clone(),
        exercises: exercises.clone(),
        queue_cap: args.queue_cap,
        bell,
    });
    let router = http::router(app);

    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| failure(format!("could not start the async runtime: {e}")))?;
    runtime.block_on(async move {
        let scheme = if args.tls.is_some() { "https" } else { "http" };
        let config = match &args.tls {
            Some((cert, key)) => Some(tls::config(cert, key).await.map_err(failure)?),
            None => None,
        };
        // Tests read the port from this line: keep it the first line on stdout.
        println!(
            "course-server: serving {scheme}://{address} (runner {}, judge {fingerprint}, {} exercises)",
            program.display(),
            exercises.len()
        );
        let _ = std::io::stdout().flush();
        let served = match config {
            Some(config) => axum_server::from_tcp_rustls(listener, config)
                .map_err(|e| failure(format!("could not serve HTTPS: {e}")))?
                .serve(router.into_make_service())
                .await,
            None => {
                let listener = tokio::net::TcpListener::from_std(listener)
                    .map_err(|e| failure(format!("could not serve HTTP: {e}")))?;
                axum::serve(listener, router).await
            }
        };
        served.map_err(|e| failure(format!("the server stopped: {e}")))
    })
}

fn add_learners(names: &[String], db_path: &PathBuf) -> Result<(), Stop> {
    let mut conn = db::open(db_path).map_err(failure)?;
    let mut added = Vec::new();
    for name in names {
        if added.iter().any(|(n, _)| n == name) {
            return Err(bad_argument(format!("{name} is named twice")));
        }
        added.push((name.clone(), new_token()?));
    }
    match db::add_learners(&mut conn, &added) {
        Err(e) => Err(failure(format!("could not add the learners: {e}"))),
        Ok(Err(taken)) => Err(failure(format!(
            "there is already a learner called {taken} in {}; nobody was added",
            db_path.display()
        ))),
        Ok(Ok(())) => {
            for (name, token) in &added {
                println!("{name} {token}");
            }
            Ok(())
        }
    }
}

/// 128 random bits, in hex.
fn new_token() -> Result<String, Stop> {
    use std::io::Read;
    let mut bytes = [0u8; 16];
    std::fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut bytes))
        .map_err(|e| failure(format!("could not read /dev/urandom for a token: {e}")))?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

fn export(db_path: &PathBuf, out: Option<&PathBuf>) -> Result<(), Stop> {
    if !db_path.is_file() {
        return Err(bad_argument(format!(
            "there is no database {}",
            db_path.display()
        )));
    }
    let conn = db::open(db_path).map_err(failure)?;
    match out {
        Some(path) => {
            let mut file = std::fs::File::create(path)
                .map_err(|e| failure(format!("could not create {}: {e}", path.display())))?;
            let n = export::write_csv(&conn, &mut file).map_err(failure)?;
            eprintln!(
                "course-server: {n} submissions written to {}",
                path.display()
            );
            Ok(())
        }
        None => export::write_csv(&conn, &mut std::io::stdout().lock())
            .map(|_| ())
            .map_err(failure),
    }
}
