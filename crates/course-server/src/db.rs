//! Everything the server knows, in one SQLite file: learners, submissions and the course's own
//! solutions' times. A server killed at any moment restarts from this file alone.
use std::path::Path;

use protocol::remote::{Job, Submission, Timing, Verdict};
use rusqlite::{Connection, OptionalExtension, params};

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS learners (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    token TEXT NOT NULL UNIQUE,
    created TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
CREATE TABLE IF NOT EXISTS submissions (
    id INTEGER PRIMARY KEY,
    learner_id INTEGER NOT NULL REFERENCES learners(id),
    key TEXT NOT NULL,
    chapter TEXT NOT NULL,
    exercise TEXT NOT NULL,
    kernel_name TEXT NOT NULL,
    kernel TEXT NOT NULL,
    plan TEXT NOT NULL,
    todo TEXT,
    seeds TEXT NOT NULL,
    -- queued, judging, timing or done (protocol::remote::State)
    state TEXT NOT NULL DEFAULT 'queued',
    created TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    started TEXT,
    finished TEXT,
    -- The correctness run's line while timing, the final line once done.
    line TEXT,
    verdict TEXT,
    timing TEXT,
    -- The running runner's process group, so that a restarted server can end it.
    runner_pid INTEGER,
    UNIQUE (learner_id, key)
);
CREATE INDEX IF NOT EXISTS submissions_by_state ON submissions (state, id);
CREATE TABLE IF NOT EXISTS solution_times (
    chapter TEXT NOT NULL,
    exercise TEXT NOT NULL,
    median_us REAL NOT NULL,
    measured TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    PRIMARY KEY (chapter, exercise)
);
";

const NOW: &str = "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')";

pub fn open(path: &Path) -> std::result::Result<Connection, String> {
    let fail = |e: rusqlite::Error| format!("could not open the database {}: {e}", path.display());
    let conn = Connection::open(path).map_err(fail)?;
    conn.pragma_update(None, "journal_mode", "WAL")
        .map_err(fail)?;
    conn.pragma_update(None, "foreign_keys", "ON")
        .map_err(fail)?;
    conn.busy_timeout(std::time::Duration::from_secs(10))
        .map_err(fail)?;
    conn.execute_batch(SCHEMA).map_err(fail)?;
    Ok(conn)
}

pub type Result<T> = rusqlite::Result<T>;

pub struct Learner {
    pub id: i64,
    pub name: String,
}

/// Adds all the learners or none; `Ok(Err(name))` names one that is already there.
pub fn add_learners(
    conn: &mut Connection,
    names_and_tokens: &[(String, String)],
) -> Result<std::result::Result<(), String>> {
    let tx = conn.transaction()?;
    for (name, token) in names_and_tokens {
        let taken: bool = tx.query_row(
            "SELECT EXISTS (SELECT 1 FROM learners WHERE name = ?1)",
            [name],
            |r| r.get(0),
        )?;
        if taken {
            return Ok(Err(name.clone()));
        }
        tx.execute(
            "INSERT INTO learners (name, token) VALUES (?1, ?2)",
            params![name, token],
        )?;
    }
    tx.commit()?;
    Ok(Ok(()))
}

pub fn learner_by_token(conn: &Connection, token: &str) -> Result<Option<Learner>> {
    conn.query_row(
        "SELECT id, name FROM learners WHERE token = ?1",
        [token],
        |r| {
            Ok(Learner {
                id: r.get(0)?,
                name: r.get(1)?,
            })
        },
    )
    .optional()
}

pub fn find_by_key(conn: &Connection, learner_id: i64, key: &str) -> Result<Option<i64>> {
    conn.query_row(
        "SELECT id FROM submissions WHERE learner_id = ?1 AND key = ?2",
        params![learner_id, key],
        |r| r.get(0),
    )
    .optional()
}

/// The learner's submissions without a verdict yet.
pub fn waiting(conn: &Connection, learner_id: i64) -> Result<u32> {
    conn.query_row(
        "SELECT count(*) FROM submissions WHERE learner_id = ?1 AND state != 'done'",
        [learner_id],
        |r| r.get(0),
    )
}

pub fn insert(conn: &Connection, learner_id: i64, s: &Submission) -> Result<i64> {
    conn.execute(
        "INSERT INTO submissions
             (learner_id, key, chapter, exercise, kernel_name, kernel, plan, todo, seeds)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
        params![
            learner_id,
            s.key,
            s.chapter,
            s.exercise,
            s.kernel_name,
            s.kernel,
            s.plan.to_string(),
            s.todo,
            serde_json::to_string(&s.seeds).expect("a list of numbers is JSON"),
        ],
    )?;
    Ok(conn.last_insert_rowid())
}

const JOB_COLUMNS: &str = "id, chapter, exercise, kernel_name, kernel, plan, todo, seeds";

fn job_row(r: &rusqlite::Row, timed: bool) -> Result<(i64, Job)> {
    let json = |i: usize| -> Result<serde_json::Value> {
        let text: String = r.get(i)?;
        serde_json::from_str(&text).map_err(|e| {
            rusqlite::Error::FromSqlConversionFailure(i, rusqlite::types::Type::Text, e.into())
        })
    };
    let seeds = serde_json::from_value(json(7)?).map_err(|e| {
        rusqlite::Error::FromSqlConversionFailure(7, rusqlite::types::Type::Text, e.into())
    })?;
    Ok((
        r.get(0)?,
        Job {
            chapter: r.get(1)?,
            exercise: r.get(2)?,
            kernel_name: r.get(3)?,
            kernel: r.get(4)?,
            plan: json(5)?,
            todo: r.get(6)?,
            seeds,
            timed,
        },
    ))
}

/// Takes the oldest queued submission for a correctness run, in one statement, so two workers
/// never take the same one.
pub fn claim_for_judging(conn: &Connection) -> Result<Option<(i64, Job)>> {
    conn.query_row(
        &format!(
            "UPDATE submissions SET state = 'judging', started = {NOW}
             WHERE id = (SELECT id FROM submissions WHERE state = 'queued' ORDER BY id LIMIT 1)
             RETURNING {JOB_COLUMNS}"
        ),
        [],
        |r| job_row(r, false),
    )
    .optional()
}

/// The oldest correct submission waiting for its timed run (there is one timed worker).
pub fn next_for_timing(conn: &Connection) -> Result<Option<(i64, Job)>> {
    conn.query_row(
        &format!(
            "SELECT {JOB_COLUMNS} FROM submissions WHERE state = 'timing' ORDER BY id LIMIT 1"
        ),
        [],
        |r| job_row(r, true),
    )
    .optional()
}

pub fn set_runner_pid(conn: &Connection, id: i64, pid: Option<i32>) -> Result<()> {
    conn.execute(
        "UPDATE submissions SET runner_pid = ?2 WHERE id = ?1",
        params![id, pid],
    )?;
    Ok(())
}

pub fn passed_correctness(conn: &Connection, id: i64, line: &str) -> Result<()> {
    conn.execute(
        "UPDATE submissions SET state = 'timing', line = ?2, runner_pid = NULL
         WHERE id = ?1 AND state = 'judging'",
        params![id, line],
    )?;
    Ok(())
}

/// The verdict, written once: a submission already done is left as it is.
pub fn finish(
    conn: &Connection,
    id: i64,
    verdict: Verdict,
    line: &str,
    timing: Option<&Timing>,
) -> Result<()> {
    conn.execute(
        &format!(
            "UPDATE submissions
             SET state = 'done', verdict = ?2, line = ?3, timing = ?4, finished = {NOW},
                 runner_pid = NULL
             WHERE id = ?1 AND state != 'done'"
        ),
        params![
            id,
            verdict_name(verdict),
            line,
            timing.map(|t| serde_json::to_string(t).expect("a timing is JSON")),
        ],
    )?;
    Ok(())
}

pub fn verdict_name(v: Verdict) -> &'static str {
    match v {
        Verdict::Passed => "passed",
        Verdict::NotYet => "not_yet",
        Verdict::Failed => "failed",
        Verdict::Skipped => "skipped",
    }
}

/// Runs a killed server left behind: (submission, runner's process group).
pub fn left_running(conn: &Connection) -> Result<Vec<(i64, i32)>> {
    let mut stmt = conn.prepare(
        "SELECT id, runner_pid FROM submissions
         WHERE state IN ('judging', 'timing') AND runner_pid IS NOT NULL",
    )?;
    stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect()
}

/// After a restart: correctness runs go back to the queue, timed runs back to the timed queue,
/// both under their own ids, with no verdict yet.
pub fn requeue_unfinished(conn: &Connection) -> Result<usize> {
    let judging = conn.execute(
        "UPDATE submissions SET state = 'queued', started = NULL, runner_pid = NULL
         WHERE state = 'judging'",
        [],
    )?;
    let timing = conn.execute(
        "UPDATE submissions SET runner_pid = NULL WHERE state = 'timing' AND runner_pid IS NOT NULL",
        [],
    )?;
    Ok(judging + timing)
}

pub fn set_solution_time(conn: &Connection, chapter: &str, exercise: &str, us: f64) -> Result<()> {
    conn.execute(
        &format!(
            "INSERT INTO solution_times (chapter, exercise, median_us) VALUES (?1, ?2, ?3)
             ON CONFLICT (chapter, exercise) DO UPDATE SET median_us = ?3, measured = {NOW}"
        ),
        params![chapter, exercise, us],
    )?;
    Ok(())
}

pub fn solution_times(conn: &Connection) -> Result<Vec<(String, String, f64)>> {
    let mut stmt = conn.prepare("SELECT chapter, exercise, median_us FROM solution_times")?;
    stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
        .collect()
}

/// One submission as the API, the board and the export read it.
#[derive(Clone, Debug)]
pub struct Row {
    pub id: i64,
    pub learner_id: i64,
    pub learner: String,
    pub chapter: String,
    pub exercise: String,
    pub state: String,
    pub verdict: Option<String>,
    pub line: Option<String>,
    pub timing: Option<Timing>,
    pub created: String,
    pub finished: Option<String>,
    /// Seconds since it came in.
    pub age_s: f64,
}

const ROW_SELECT: &str = "
SELECT s.id, s.learner_id, l.name, s.chapter, s.exercise, s.state, s.verdict, s.line, s.timing,
       s.created, s.finished, (julianday('now') - julianday(s.created)) * 86400.0
FROM submissions s JOIN learners l ON l.id = s.learner_id";

fn read_row(r: &rusqlite::Row) -> Result<Row> {
    let timing: Option<String> = r.get(8)?;
    Ok(Row {
        id: r.get(0)?,
        learner_id: r.get(1)?,
        learner: r.get(2)?,
        chapter: r.get(3)?,
        exercise: r.get(4)?,
        state: r.get(5)?,
        verdict: r.get(6)?,
        line: r.get(7)?,
        // A timing that does not parse is shown as none rather than failing the whole page.
        timing: timing.and_then(|t| serde_json::from_str(&t).ok()),
        created: r.get(9)?,
        finished: r.get(10)?,
        age_s: r.get(11)?,
    })
}

pub fn rows(conn: &Connection, filter: &str, args: impl rusqlite::Params) -> Result<Vec<Row>> {
    let mut stmt = conn.prepare(&format!("{ROW_SELECT} {filter}"))?;
    stmt.query_map(args, read_row)?.collect()
}

pub fn row(conn: &Connection, id: i64) -> Result<Option<Row>> {
    Ok(rows(conn, "WHERE s.id = ?1", [id])?.into_iter().next())
}

/// How many wait before this one in its queue (the correctness queue or the timed one).
pub fn ahead(conn: &Connection, id: i64, state: &str) -> Result<u32> {
    conn.query_row(
        "SELECT count(*) FROM submissions WHERE state = ?2 AND id < ?1",
        params![id, state],
        |r| r.get(0),
    )
}

pub fn count_learners(conn: &Connection) -> Result<u32> {
    conn.query_row("SELECT count(*) FROM learners", [], |r| r.get(0))
}

pub fn count_by_state(conn: &Connection) -> Result<Vec<(String, u32)>> {
    let mut stmt = conn.prepare("SELECT state, count(*) FROM submissions GROUP BY state")?;
    stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect()
}
