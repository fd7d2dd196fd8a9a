//! `course-server export`: every submission as CSV (RFC 4180 quoting), for marking afterwards.
use std::io::Write;

use rusqlite::Connection;

use crate::db;

const HEADER: [&str; 12] = [
    "id",
    "learner",
    "chapter",
    "exercise",
    "state",
    "verdict",
    "line",
    "median_us",
    "rate",
    "unit",
    "created",
    "finished",
];

pub fn write_csv(conn: &Connection, out: &mut dyn Write) -> Result<usize, String> {
    let rows = db::rows(conn, "ORDER BY s.id", [])
        .map_err(|e| format!("could not read the submissions: {e}"))?;
    let fail = |e: std::io::Error| format!("could not write the CSV: {e}");
    writeln!(out, "{}", HEADER.join(",")).map_err(fail)?;
    for r in &rows {
        let timing = r.timing.as_ref();
        let fields = [
            r.id.to_string(),
            r.learner.clone(),
            r.chapter.clone(),
            r.exercise.clone(),
            r.state.clone(),
            r.verdict.clone().unwrap_or_default(),
            r.line
                .clone()
                .filter(|_| r.state == "done")
                .unwrap_or_default(),
            timing.map(|t| t.median_us.to_string()).unwrap_or_default(),
            timing.map(|t| t.rate.to_string()).unwrap_or_default(),
            timing.map(|t| t.unit.clone()).unwrap_or_default(),
            r.created.clone(),
            r.finished.clone().unwrap_or_default(),
        ];
        let line: Vec<String> = fields.iter().map(|f| quote(f)).collect();
        writeln!(out, "{}", line.join(",")).map_err(fail)?;
    }
    out.flush().map_err(fail)?;
    Ok(rows.len())
}

/// A field in quotes (with its quotes doubled) where it holds a comma, a quote or a line break.
pub fn quote(field: &str) -> String {
    if field.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", field.replace('"', "\"\""))
    } else {
        field.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::quote;

    #[test]
    fn quotes_only_what_needs_it() {
        assert_eq!(quote("passed"), "passed");
        assert_eq!(quote("not yet: 1, \"2\""), "\"not yet: 1, \"\"2\"\"\"");
        assert_eq!(quote("a\nb"), "\"a\nb\"");
    }
}
