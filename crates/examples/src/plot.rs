//! Line charts as SVG text, small enough to read in one sitting. The programs that draw the
//! book's figures write them with this, and a test checks that the committed figure is what
//! the program draws.

use std::fmt::Write;

/// One labelled line of `(x, y)` points.
pub struct Series {
    pub label: String,
    pub points: Vec<(f64, f64)>,
}

/// A chart with linear or base-10 logarithmic axes.
pub struct Chart {
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    pub log_x: bool,
    pub log_y: bool,
    pub series: Vec<Series>,
}

const W: f64 = 640.0;
const H: f64 = 400.0;
const LEFT: f64 = 70.0;
const RIGHT: f64 = 170.0;
const TOP: f64 = 40.0;
const BOTTOM: f64 = 55.0;
const COLOURS: [&str; 8] =
    ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf"];

/// Maps data to pixels along one axis.
struct Axis {
    log: bool,
    lo: f64,
    hi: f64,
}

impl Axis {
    fn new(log: bool, values: impl Iterator<Item = f64>) -> Axis {
        let t = |v: f64| if log { v.log10() } else { v };
        let (mut lo, mut hi) = values.map(t).fold((f64::MAX, f64::MIN), |(a, b), v| (a.min(v), b.max(v)));
        if log {
            (lo, hi) = (lo.floor(), hi.ceil());
        } else {
            let step = nice_step(hi - lo);
            (lo, hi) = ((lo / step).floor() * step, (hi / step).ceil() * step);
        }
        if hi <= lo {
            hi = lo + 1.0;
        }
        Axis { log, lo, hi }
    }

    /// Position in `0..=1` along the axis.
    fn frac(&self, v: f64) -> f64 {
        let v = if self.log { v.log10() } else { v };
        (v - self.lo) / (self.hi - self.lo)
    }

    fn ticks(&self) -> Vec<f64> {
        if self.log {
            (self.lo as i32..=self.hi as i32).map(|e| 10f64.powi(e)).collect()
        } else {
            let step = nice_step(self.hi - self.lo);
            let n = ((self.hi - self.lo) / step).round() as i32;
            (0..=n).map(|i| self.lo + i as f64 * step).collect()
        }
    }
}

/// A round step (1, 2 or 5 times a power of ten) giving about five intervals over `span`.
fn nice_step(span: f64) -> f64 {
    let raw = (span / 5.0).max(f64::MIN_POSITIVE);
    let power = 10f64.powf(raw.log10().floor());
    [1.0, 2.0, 5.0, 10.0].into_iter().map(|m| m * power).find(|s| *s >= raw).unwrap_or(10.0 * power)
}

fn tick_label(v: f64, log: bool) -> String {
    if log {
        let e = v.log10().round() as i32;
        if (0..=3).contains(&e) { format!("{}", 10i64.pow(e as u32)) } else { format!("1e{e}") }
    } else if v.fract() == 0.0 {
        format!("{v:.0}")
    } else {
        format!("{v}")
    }
}

impl Chart {
    pub fn to_svg(&self) -> String {
        let all = || self.series.iter().flat_map(|s| s.points.iter());
        let x = Axis::new(self.log_x, all().map(|p| p.0));
        let y = Axis::new(self.log_y, all().map(|p| p.1));
        let (pw, ph) = (W - LEFT - RIGHT, H - TOP - BOTTOM);
        let px = |v: f64| LEFT + x.frac(v) * pw;
        let py = |v: f64| TOP + (1.0 - y.frac(v)) * ph;

        let mut s = String::new();
        let _ = writeln!(s, r#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {W} {H}" font-family="sans-serif" font-size="12">"#);
        let _ = writeln!(s, r#"<rect width="{W}" height="{H}" fill="white"/>"#);
        let _ = writeln!(s, r#"<text x="{}" y="22" text-anchor="middle" font-size="15">{}</text>"#, LEFT + pw / 2.0, esc(&self.title));
        for t in x.ticks() {
            let p = px(t);
            let _ = writeln!(s, r##"<line x1="{p:.1}" y1="{TOP}" x2="{p:.1}" y2="{:.1}" stroke="#ddd"/>"##, TOP + ph);
            let _ = writeln!(s, r#"<text x="{p:.1}" y="{:.1}" text-anchor="middle">{}</text>"#, TOP + ph + 16.0, tick_label(t, x.log));
        }
        for t in y.ticks() {
            let p = py(t);
            let _ = writeln!(s, r##"<line x1="{LEFT}" y1="{p:.1}" x2="{:.1}" y2="{p:.1}" stroke="#ddd"/>"##, LEFT + pw);
            let _ = writeln!(s, r#"<text x="{:.1}" y="{:.1}" text-anchor="end">{}</text>"#, LEFT - 6.0, p + 4.0, tick_label(t, y.log));
        }
        let _ = writeln!(s, r##"<rect x="{LEFT}" y="{TOP}" width="{pw}" height="{ph}" fill="none" stroke="#333"/>"##);
        let _ = writeln!(s, r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">{}</text>"#, LEFT + pw / 2.0, H - 12.0, esc(&self.x_label));
        let _ = writeln!(s, r#"<text transform="translate(18 {:.1}) rotate(-90)" text-anchor="middle">{}</text>"#, TOP + ph / 2.0, esc(&self.y_label));
        for (i, series) in self.series.iter().enumerate() {
            let colour = COLOURS[i % COLOURS.len()];
            let points: Vec<String> = series.points.iter().map(|&(a, b)| format!("{:.1},{:.1}", px(a), py(b))).collect();
            let _ = writeln!(s, r#"<polyline fill="none" stroke="{colour}" stroke-width="2" points="{}"/>"#, points.join(" "));
            let ly = TOP + 10.0 + 20.0 * i as f64;
            let lx = LEFT + pw + 12.0;
            let _ = writeln!(s, r#"<line x1="{lx}" y1="{ly}" x2="{}" y2="{ly}" stroke="{colour}" stroke-width="2"/>"#, lx + 22.0);
            let _ = writeln!(s, r#"<text x="{}" y="{}">{}</text>"#, lx + 28.0, ly + 4.0, esc(&series.label));
        }
        s.push_str("</svg>\n");
        s
    }
}

fn esc(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}
