//! The HTTP API (JSON) and the page. Every refusal is a [`Refusal`]: one sentence naming the
//! cause, at most 200 characters.
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::body::Body;
use axum::extract::{Path, State as AppState};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::{get, post};
use http_body_util::{BodyExt, LengthLimitError, Limited};
use protocol::remote::{Ack, JUDGE_HEADER, Outcome, Refusal, State, Status, Submission, Timing};
use rusqlite::Connection;
use serde::Serialize;

use crate::db;
use crate::queue::Bell;
use crate::runner::cut_chars;

/// A submission is one kernel file and a small plan: a request beyond this is refused unread.
const BODY_LIMIT: usize = 1024 * 1024;
const KERNEL_LIMIT: usize = 256 * 1024;

pub struct App {
    /// The API's own connection; the queue's workers have theirs.
    pub db: Mutex<Connection>,
    /// The runner's fingerprint: a judge with another one was built from another course.
    pub fingerprint: String,
    /// In the order the runner listed them.
    pub exercises: Vec<(String, String)>,
    pub queue_cap: u32,
    pub bell: Arc<Bell>,
}

pub fn router(app: Arc<App>) -> Router {
    Router::new()
        .route("/", get(page))
        .route("/api/submissions", post(submit))
        .route("/api/submissions/{id}", get(status))
        .route("/api/overview", get(overview))
        .route("/api/history", get(history))
        .fallback(no_such_page)
        .method_not_allowed_fallback(no_such_method)
        .with_state(app)
}

pub struct Refuse(StatusCode, String);

impl IntoResponse for Refuse {
    fn into_response(self) -> Response {
        let error = cut_chars(&self.1, 199);
        (self.0, axum::Json(Refusal { error })).into_response()
    }
}

fn refuse(status: StatusCode, sentence: impl Into<String>) -> Refuse {
    Refuse(status, sentence.into())
}

impl From<rusqlite::Error> for Refuse {
    fn from(e: rusqlite::Error) -> Refuse {
        eprintln!("course-server: database error: {e}");
        refuse(
            StatusCode::INTERNAL_SERVER_ERROR,
            format!(
                "the server's database failed ({}); tell the instructor",
                cut_chars(&e.to_string(), 100)
            ),
        )
    }
}

type Reply<T> = Result<T, Refuse>;

async fn page() -> Html<&'static str> {
    Html(include_str!("../page/index.html"))
}

async fn no_such_page(uri: axum::http::Uri) -> Refuse {
    refuse(
        StatusCode::NOT_FOUND,
        format!("there is no {} on this server", cut_chars(uri.path(), 100)),
    )
}

async fn no_such_method(method: axum::http::Method, uri: axum::http::Uri) -> Refuse {
    refuse(
        StatusCode::METHOD_NOT_ALLOWED,
        format!(
            "{} {} is not something this server does",
            method,
            cut_chars(uri.path(), 100)
        ),
    )
}

impl App {
    fn learner(&self, headers: &HeaderMap) -> Reply<db::Learner> {
        let token = headers
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "))
            .map(str::trim)
            .ok_or_else(|| {
                refuse(
                    StatusCode::UNAUTHORIZED,
                    "this request has no token; pass the one your instructor gave you with --token",
                )
            })?;
        db::learner_by_token(&self.db.lock().unwrap(), token)?.ok_or_else(|| {
            refuse(
                StatusCode::UNAUTHORIZED,
                "unknown token; check the one your instructor gave you (judge --remote URL --token TOKEN)",
            )
        })
    }
}

async fn submit(
    AppState(app): AppState<Arc<App>>,
    headers: HeaderMap,
    body: Body,
) -> Reply<Response> {
    let too_big = |bytes: Option<u64>| {
        let size = match bytes {
            Some(b) => format!("{:.1} MB", b as f64 / 1e6),
            None => "more than 1 MiB".to_string(),
        };
        refuse(
            StatusCode::PAYLOAD_TOO_LARGE,
            format!(
                "the submission is {size}; the server takes at most 1 MiB (one kernel file and its plan)"
            ),
        )
    };
    let declared = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > BODY_LIMIT as u64) {
        return Err(too_big(declared));
    }
    let bytes = match Limited::new(body, BODY_LIMIT).collect().await {
        Ok(collected) => collected.to_bytes(),
        Err(e) if e.is::<LengthLimitError>() => return Err(too_big(None)),
        Err(e) => {
            return Err(refuse(
                StatusCode::BAD_REQUEST,
                format!(
                    "the submission could not be read: {}",
                    cut_chars(&e.to_string(), 120)
                ),
            ));
        }
    };

    let learner = app.learner(&headers)?;

    let submission: Submission = serde_json::from_slice(&bytes).map_err(|e| {
        refuse(
            StatusCode::BAD_REQUEST,
            format!(
                "the submission is not the JSON this server reads: {}",
                cut_chars(&e.to_string(), 120)
            ),
        )
    })?;

    let theirs = headers
        .get(JUDGE_HEADER)
        .and_then(|v| v.to_str().ok())
        .unwrap_or(&submission.judge);
    if theirs != app.fingerprint {
        return Err(refuse(
            StatusCode::CONFLICT,
            format!(
                "your judge was built from another version of the course than the server's (judge {}, server {}); update to the workshop's commit and run again",
                cut_chars(theirs, 24),
                cut_chars(&app.fingerprint, 24)
            ),
        ));
    }

    if submission.kernel.len() > KERNEL_LIMIT {
        return Err(refuse(
            StatusCode::PAYLOAD_TOO_LARGE,
            format!(
                "the kernel file is {} KiB; the server takes at most {} KiB",
                submission.kernel.len().div_ceil(1024),
                KERNEL_LIMIT / 1024
            ),
        ));
    }
    check_names(&submission)?;
    let exercise = (submission.chapter.clone(), submission.exercise.clone());
    if !app.exercises.contains(&exercise) {
        return Err(refuse(
            StatusCode::NOT_FOUND,
            format!(
                "this server does not judge {} {}; check the name, or judge it on your laptop",
                cut_chars(&submission.chapter, 20),
                cut_chars(&submission.exercise, 60)
            ),
        ));
    }

    let conn = app.db.lock().unwrap();
    if let Some(id) = db::find_by_key(&conn, learner.id, &submission.key)? {
        return Ok((StatusCode::OK, axum::Json(Ack { id })).into_response());
    }
    let waiting = db::waiting(&conn, learner.id)?;
    if waiting >= app.queue_cap {
        return Err(refuse(
            StatusCode::TOO_MANY_REQUESTS,
            format!("you already have {waiting} submissions waiting; wait for their verdicts"),
        ));
    }
    let id = db::insert(&conn, learner.id, &submission)?;
    drop(conn);
    app.bell.ring();
    Ok((StatusCode::ACCEPTED, axum::Json(Ack { id })).into_response())
}

/// The key and the kernel's name are stored and handed to the runner: plain short names only.
fn check_names(s: &Submission) -> Reply<()> {
    if s.key.is_empty() || s.key.len() > 200 {
        return Err(refuse(
            StatusCode::BAD_REQUEST,
            "the submission's key must be 1 to 200 characters",
        ));
    }
    let name_ok = !s.kernel_name.is_empty()
        && s.kernel_name.len() <= 100
        && !s.kernel_name.starts_with('.')
        && s.kernel_name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "._-".contains(c));
    if !name_ok {
        return Err(refuse(
            StatusCode::BAD_REQUEST,
            format!(
                "the kernel's name `{}` is not a plain file name",
                cut_chars(&s.kernel_name, 60)
            ),
        ));
    }
    Ok(())
}

fn state_of(name: &str) -> State {
    match name {
        "queued" => State::Queued,
        "judging" => State::Judging,
        "timing" => State::Timing,
        _ => State::Done,
    }
}

async fn status(
    AppState(app): AppState<Arc<App>>,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> Reply<axum::Json<Status>> {
    let learner = app.learner(&headers)?;
    let not_yours = || {
        refuse(
            StatusCode::NOT_FOUND,
            format!(
                "you have no submission {} on this server",
                cut_chars(&id, 20)
            ),
        )
    };
    let number: i64 = id.parse().map_err(|_| not_yours())?;
    let conn = app.db.lock().unwrap();
    let row = db::row(&conn, number)?
        .filter(|r| r.learner_id == learner.id)
        .ok_or_else(not_yours)?;
    let state = state_of(&row.state);
    let ahead = match state {
        State::Queued | State::Timing => Some(db::ahead(&conn, row.id, &row.state)?),
        State::Judging => Some(0),
        State::Done => None,
    };
    let outcome = match state {
        State::Done => {
            let place = match &row.timing {
                Some(_) => {
                    let board = board(&conn, &row.chapter, &row.exercise, None)?;
                    board
                        .iter()
                        .find(|e| e.learner == learner.name)
                        .map(|e| (e.place, board.len() as u32))
                }
                None => None,
            };
            // The verdict's first line is its sentence; the rest (a compiler's log) follows.
            let text = row.line.clone().unwrap_or_default();
            let (line, details) = match text.split_once('\n') {
                Some((line, rest)) => (line.to_string(), Some(rest.to_string())),
                None => (text, None),
            };
            Some(Outcome {
                line,
                details,
                timing: row.timing.clone(),
                place,
            })
        }
        _ => None,
    };
    Ok(axum::Json(Status {
        id: row.id,
        state,
        ahead,
        outcome,
    }))
}

#[derive(Serialize)]
pub struct BoardEntry {
    pub place: u32,
    pub learner: String,
    pub submission: i64,
    pub median_us: f64,
    pub rate: f64,
    pub unit: String,
    /// The course's solution's time over this one: 1.0 is as fast as the solution.
    pub share_of_solution: Option<f64>,
}

/// Each learner's best correct timed run on one exercise, fastest first.
fn board(
    conn: &Connection,
    chapter: &str,
    exercise: &str,
    solution_us: Option<f64>,
) -> db::Result<Vec<BoardEntry>> {
    let rows = db::rows(
        conn,
        "WHERE s.state = 'done' AND s.verdict = 'passed' AND s.timing IS NOT NULL
           AND s.chapter = ?1 AND s.exercise = ?2",
        [chapter, exercise],
    )?;
    let mut best: BTreeMap<String, (i64, Timing)> = BTreeMap::new();
    for row in rows {
        let Some(timing) = row.timing else { continue };
        let better = best
            .get(&row.learner)
            .is_none_or(|(_, t)| timing.median_us < t.median_us);
        if better {
            best.insert(row.learner, (row.id, timing));
        }
    }
    let mut entries: Vec<_> = best.into_iter().collect();
    entries.sort_by(|a, b| a.1.1.median_us.total_cmp(&b.1.1.median_us));
    Ok(entries
        .into_iter()
        .enumerate()
        .map(|(i, (learner, (submission, t)))| BoardEntry {
            place: i as u32 + 1,
            learner,
            submission,
            share_of_solution: solution_us
                .filter(|_| t.median_us > 0.0)
                .map(|s| s / t.median_us),
            median_us: t.median_us,
            rate: t.rate,
            unit: t.unit,
        })
        .collect())
}

#[derive(Serialize)]
pub struct Overview {
    pub queue: Vec<Waiting>,
    pub boards: Vec<Board>,
    pub counts: Counts,
}

#[derive(Serialize)]
pub struct Waiting {
    pub id: i64,
    pub learner: String,
    pub chapter: String,
    pub exercise: String,
    pub state: State,
    pub waited_s: f64,
}

#[derive(Serialize)]
pub struct Board {
    pub chapter: String,
    pub exercise: String,
    /// The course's own solution's median, timed on this GPU at the server's start.
    pub solution_us: Option<f64>,
    pub entries: Vec<BoardEntry>,
}

#[derive(Serialize, Default)]
pub struct Counts {
    pub learners: u32,
    pub submissions: u32,
    pub queued: u32,
    pub judging: u32,
    pub timing: u32,
    pub done: u32,
}

async fn overview(AppState(app): AppState<Arc<App>>) -> Reply<axum::Json<Overview>> {
    let conn = app.db.lock().unwrap();
    let queue = db::rows(&conn, "WHERE s.state != 'done' ORDER BY s.id", [])?
        .into_iter()
        .map(|r| Waiting {
            id: r.id,
            learner: r.learner,
            chapter: r.chapter,
            exercise: r.exercise,
            state: state_of(&r.state),
            waited_s: (r.age_s * 10.0).round() / 10.0,
        })
        .collect();
    let solutions = db::solution_times(&conn)?;
    let solution_us = |c: &str, e: &str| {
        solutions
            .iter()
            .find(|(sc, se, _)| sc == c && se == e)
            .map(|(_, _, us)| *us)
    };
    let mut boards = Vec::new();
    for (chapter, exercise) in &app.exercises {
        let us = solution_us(chapter, exercise);
        boards.push(Board {
            entries: board(&conn, chapter, exercise, us)?,
            chapter: chapter.clone(),
            exercise: exercise.clone(),
            solution_us: us,
        });
    }
    let mut counts = Counts {
        learners: db::count_learners(&conn)?,
        ..Counts::default()
    };
    for (state, n) in db::count_by_state(&conn)? {
        counts.submissions += n;
        match state_of(&state) {
            State::Queued => counts.queued += n,
            State::Judging => counts.judging += n,
            State::Timing => counts.timing += n,
            State::Done => counts.done += n,
        }
    }
    Ok(axum::Json(Overview {
        queue,
        boards,
        counts,
    }))
}

#[derive(Serialize)]
pub struct Past {
    pub id: i64,
    pub chapter: String,
    pub exercise: String,
    pub state: State,
    pub line: Option<String>,
    pub timing: Option<Timing>,
    pub created: String,
}

async fn history(
    AppState(app): AppState<Arc<App>>,
    headers: HeaderMap,
) -> Reply<axum::Json<Vec<Past>>> {
    let learner = app.learner(&headers)?;
    let conn = app.db.lock().unwrap();
    let rows = db::rows(&conn, "WHERE s.learner_id = ?1 ORDER BY s.id", [learner.id])?;
    Ok(axum::Json(
        rows.into_iter()
            .map(|r| Past {
                id: r.id,
                chapter: r.chapter,
                exercise: r.exercise,
                state: state_of(&r.state),
                // A correctness run's line is not the verdict yet.
                line: if r.state == "done" { r.line } else { None },
                timing: r.timing,
                created: r.created,
            })
            .collect(),
    ))
}
