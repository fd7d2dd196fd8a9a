//! The two queues, worked from the database: correctness runs (several at once, in arrival
//! order) and timed runs (one at a time, with the GPU alone), and the course's reference times
//! measured when no learner's timed run waits.
use std::path::PathBuf;
use std::sync::{Arc, Condvar, Mutex, RwLock};
use std::thread;
use std::time::Duration;

use protocol::remote::{Job, Verdict};
use rusqlite::Connection;

use crate::catalogue;
use crate::db;
use crate::runner::{Limits, RunOutcome, Runner};

pub struct Queue {
    pub db_path: PathBuf,
    pub runner: Arc<dyn Runner>,
    pub limits: Limits,
    pub correctness_runs: usize,
    /// The judge program that hands out the course's solutions, and the exercises to time.
    pub program: PathBuf,
    pub exercises: Vec<(String, String)>,
    pub bell: Arc<Bell>,
    /// Correctness runs share the GPU (read); a timed run, or a GPU check, has it alone (write).
    gpu: RwLock<()>,
    /// Set after a run that may have left the GPU broken: no run starts until a check passes.
    suspect: Mutex<bool>,
}

/// Wakes the workers when a submission comes in or moves on; they also look every so often.
#[derive(Default)]
pub struct Bell {
    rings: Mutex<u64>,
    cv: Condvar,
}

impl Bell {
    pub fn ring(&self) {
        *self.rings.lock().unwrap() += 1;
        self.cv.notify_all();
    }

    fn wait(&self) {
        let rings = self.rings.lock().unwrap();
        let seen = *rings;
        let _ = self
            .cv
            .wait_timeout_while(rings, Duration::from_millis(250), |r| *r == seen)
            .unwrap();
    }
}

impl Queue {
    pub fn new(
        db_path: PathBuf,
        runner: Arc<dyn Runner>,
        limits: Limits,
        correctness_runs: usize,
        program: PathBuf,
        exercises: Vec<(String, String)>,
        bell: Arc<Bell>,
    ) -> Queue {
        Queue {
            db_path,
            runner,
            limits,
            correctness_runs,
            program,
            exercises,
            bell,
            gpu: RwLock::new(()),
            suspect: Mutex::new(false),
        }
    }

    /// Ends the runs a killed server left and puts their submissions back in their queues.
    /// Call before [`Queue::start`].
    pub fn recover(&self, conn: &Connection) -> db::Result<()> {
        for (id, pgid) in db::left_running(conn)? {
            eprintln!("course-server: submission {id} was being judged when the server stopped");
            self.runner.end_leftover(pgid);
        }
        let n = db::requeue_unfinished(conn)?;
        if n > 0 {
            eprintln!("course-server: {n} unfinished submission(s) put back in the queue");
        }
        Ok(())
    }

    pub fn start(self: Arc<Self>) -> Result<(), String> {
        for _ in 0..self.correctness_runs {
            let conn = db::open(&self.db_path)?;
            let queue = self.clone();
            thread::spawn(move || queue.correctness_worker(conn));
        }
        let conn = db::open(&self.db_path)?;
        thread::spawn(move || self.timed_worker(conn));
        Ok(())
    }

    fn correctness_worker(&self, conn: Connection) {
        loop {
            self.wait_for_healthy_gpu();
            let Some((id, job)) = logged(db::claim_for_judging(&conn)).flatten() else {
                self.bell.wait();
                continue;
            };
            let outcome = {
                let _shared = self.gpu.read().unwrap();
                self.run(&conn, id, &job)
            };
            self.note_fault(&outcome);
            if outcome.verdict == Verdict::Passed {
                logged(db::passed_correctness(&conn, id, &outcome.line));
                self.bell.ring();
            } else {
                logged(db::finish(&conn, id, outcome.verdict, &outcome.line, None));
            }
        }
    }

    fn timed_worker(&self, conn: Connection) {
        let mut references = self.exercises.clone().into_iter();
        loop {
            self.wait_for_healthy_gpu();
            if let Some((id, job)) = logged(db::next_for_timing(&conn)).flatten() {
                let outcome = {
                    let _alone = self.gpu.write().unwrap();
                    self.run(&conn, id, &job)
                };
                self.note_fault(&outcome);
                let timing = match outcome.verdict {
                    Verdict::Passed => outcome.timing.as_ref(),
                    _ => None,
                };
                logged(db::finish(
                    &conn,
                    id,
                    outcome.verdict,
                    &outcome.line,
                    timing,
                ));
            } else if let Some((chapter, exercise)) = references.next() {
                self.time_solution(&conn, &chapter, &exercise);
            } else {
                self.bell.wait();
            }
        }
    }

    /// Times the course's own solution of one exercise, the board's reference.
    fn time_solution(&self, conn: &Connection, chapter: &str, exercise: &str) {
        let job = match catalogue::solution_job(&self.program, chapter, exercise) {
            Ok(job) => job,
            Err(e) => {
                eprintln!("course-server: no reference time for {chapter} {exercise}: {e}");
                return;
            }
        };
        let outcome = {
            let _alone = self.gpu.write().unwrap();
            self.runner.run(&job, &self.limits, &mut |_| {})
        };
        self.note_fault(&outcome);
        match (outcome.verdict, &outcome.timing) {
            (Verdict::Passed, Some(timing)) => {
                logged(db::set_solution_time(
                    conn,
                    chapter,
                    exercise,
                    timing.median_us,
                ));
                eprintln!(
                    "course-server: the course's solution of {chapter} {exercise} takes {} µs",
                    timing.median_us
                );
            }
            _ => eprintln!(
                "course-server: no reference time for {chapter} {exercise}: {}",
                outcome.line
            ),
        }
    }

    fn run(&self, conn: &Connection, id: i64, job: &Job) -> RunOutcome {
        self.runner.run(job, &self.limits, &mut |pgid| {
            logged(db::set_runner_pid(conn, id, Some(pgid)));
        })
    }

    /// Called with the GPU's lock released (the check takes it).
    fn note_fault(&self, outcome: &RunOutcome) {
        if outcome.fault {
            *self.suspect.lock().unwrap() = true;
        }
    }

    /// After a run that may have broken the GPU, the next run waits for a check that passes,
    /// tried every 10 s.
    fn wait_for_healthy_gpu(&self) {
        let mut suspect = self.suspect.lock().unwrap();
        while *suspect {
            let checked = {
                let _alone = self.gpu.write().unwrap();
                self.runner.check_gpu()
            };
            match checked {
                Ok(()) => {
                    eprintln!("course-server: the GPU check after a faulting run passed");
                    *suspect = false;
                }
                Err(e) => {
                    eprintln!("course-server: the GPU is not healthy, no runs until it is: {e}");
                    thread::sleep(Duration::from_secs(10));
                }
            }
        }
    }
}

/// A database error in a worker is logged, and the worker goes on.
fn logged<T>(result: db::Result<T>) -> Option<T> {
    result
        .map_err(|e| eprintln!("course-server: database error: {e}"))
        .ok()
}
