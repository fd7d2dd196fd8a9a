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
/// The colours of lines and points, in the order series are drawn.
pub const COLOURS: [&str; 8] = [
    "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf",
];

/// Maps data to pixels along one axis.
struct Axis {
    log: bool,
    lo: f64,
    hi: f64,
}

impl Axis {
    fn new(log: bool, values: impl Iterator<Item = f64>) -> Axis {
        let t = |v: f64| if log { v.log10() } else { v };
        let (mut lo, mut hi) = values
            .map(t)
            .fold((f64::MAX, f64::MIN), |(a, b), v| (a.min(v), b.max(v)));
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
            (self.lo as i32..=self.hi as i32)
                .map(|e| 10f64.powi(e))
                .collect()
        } else {
            let step = nice_step(self.hi - self.lo);
            let n = ((self.hi - self.lo) / step).round() as i32;
            (0..=n).map(|i| self.lo + i as f64 * step).collect()
        }
    }
}

/// A round step (1, 2 or 5 times a power of ten) giving about five intervals over `span`.
pub fn nice_step(span: f64) -> f64 {
    let raw = (span / 5.0).max(f64::MIN_POSITIVE);
    let power = 10f64.powf(raw.log10().floor());
    [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|m| m * power)
        .find(|s| *s >= raw)
        .unwrap_or(10.0 * power)
}

fn tick_label(v: f64, log: bool) -> String {
    if log {
        let e = v.log10().round() as i32;
        if (0..=3).contains(&e) {
            format!("{}", 10i64.pow(e as u32))
        } else {
            format!("1e{e}")
        }
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
        let _ = writeln!(
            s,
            r#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {W} {H}" font-family="sans-serif" font-size="12">"#
        );
        let _ = writeln!(s, r#"<rect width="{W}" height="{H}" fill="white"/>"#);
        let _ = writeln!(
            s,
            r#"<text x="{}" y="22" text-anchor="middle" font-size="15">{}</text>"#,
            LEFT + pw / 2.0,
            esc(&self.title)
        );
        for t in x.ticks() {
            let p = px(t);
            let _ = writeln!(
                s,
                r##"<line x1="{p:.1}" y1="{TOP}" x2="{p:.1}" y2="{:.1}" stroke="#ddd"/>"##,
                TOP + ph
            );
            let _ = writeln!(
                s,
                r#"<text x="{p:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
                TOP + ph + 16.0,
                tick_label(t, x.log)
            );
        }
        for t in y.ticks() {
            let p = py(t);
            let _ = writeln!(
                s,
                r##"<line x1="{LEFT}" y1="{p:.1}" x2="{:.1}" y2="{p:.1}" stroke="#ddd"/>"##,
                LEFT + pw
            );
            let _ = writeln!(
                s,
                r#"<text x="{:.1}" y="{:.1}" text-anchor="end">{}</text>"#,
                LEFT - 6.0,
                p + 4.0,
                tick_label(t, y.log)
            );
        }
        let _ = writeln!(
            s,
            r##"<rect x="{LEFT}" y="{TOP}" width="{pw}" height="{ph}" fill="none" stroke="#333"/>"##
        );
        let _ = writeln!(
            s,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
            LEFT + pw / 2.0,
            H - 12.0,
            esc(&self.x_label)
        );
        let _ = writeln!(
            s,
            r#"<text transform="translate(18 {:.1}) rotate(-90)" text-anchor="middle">{}</text>"#,
            TOP + ph / 2.0,
            esc(&self.y_label)
        );
        for (i, series) in self.series.iter().enumerate() {
            let colour = COLOURS[i % COLOURS.len()];
            let points: Vec<String> = series
                .points
                .iter()
                .map(|&(a, b)| format!("{:.1},{:.1}", px(a), py(b)))
                .collect();
            let _ = writeln!(
                s,
                r#"<polyline fill="none" stroke="{colour}" stroke-width="2" points="{}"/>"#,
                points.join(" ")
            );
            let ly = TOP + 10.0 + 20.0 * i as f64;
            let lx = LEFT + pw + 12.0;
            let _ = writeln!(
                s,
                r#"<line x1="{lx}" y1="{ly}" x2="{}" y2="{ly}" stroke="{colour}" stroke-width="2"/>"#,
                lx + 22.0
            );
            let _ = writeln!(
                s,
                r#"<text x="{}" y="{}">{}</text>"#,
                lx + 28.0,
                ly + 4.0,
                esc(&series.label)
            );
        }
        s.push_str("</svg>\n");
        s
    }
}

fn esc(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// A grey-scale picture of `values` (`width` × `height`, row by row, the first row at the
/// bottom), darkest at the smallest value and white at the largest, as SVG text. The pixels are
/// an embedded PNG drawn `scale` times larger, without smoothing.
pub fn grey_image_svg(
    title: &str,
    values: &[f64],
    width: usize,
    height: usize,
    scale: usize,
) -> String {
    assert_eq!(
        values.len(),
        width * height,
        "a grey image needs width × height values"
    );
    let (lo, hi) = values
        .iter()
        .fold((f64::MAX, f64::MIN), |(a, b), &v| (a.min(v), b.max(v)));
    let span = if hi > lo { hi - lo } else { 1.0 };
    // PNG rows run top to bottom, each starting with its filter byte (0: none).
    let mut raw = Vec::with_capacity((width + 1) * height);
    for row in (0..height).rev() {
        raw.push(0u8);
        raw.extend(
            values[row * width..(row + 1) * width]
                .iter()
                .map(|&v| ((v - lo) / span * 255.0).round() as u8),
        );
    }
    // zlib stream of stored (uncompressed) deflate blocks, then its Adler-32.
    let mut zlib = vec![0x78, 0x01];
    let blocks: Vec<&[u8]> = raw.chunks(65_535).collect();
    for (i, block) in blocks.iter().enumerate() {
        zlib.push(u8::from(i + 1 == blocks.len()));
        let len = block.len() as u16;
        zlib.extend(len.to_le_bytes());
        zlib.extend((!len).to_le_bytes());
        zlib.extend_from_slice(block);
    }
    let (a, b) = raw.iter().fold((1u32, 0u32), |(a, b), &x| {
        ((a + x as u32) % 65_521, (b + a + x as u32) % 65_521)
    });
    zlib.extend(((b << 16) | a).to_be_bytes());
    let mut header = Vec::new();
    header.extend((width as u32).to_be_bytes());
    header.extend((height as u32).to_be_bytes());
    header.extend([8, 0, 0, 0, 0]); // 8-bit grey, no interlace
    let mut png = vec![0x89, b'P', b'N', b'G', 0x0D, 0x0A, 0x1A, 0x0A];
    for (kind, data) in [(b"IHDR", &header), (b"IDAT", &zlib), (b"IEND", &Vec::new())] {
        png.extend((data.len() as u32).to_be_bytes());
        let start = png.len();
        png.extend_from_slice(kind);
        png.extend_from_slice(data);
        let crc = crc32(&png[start..]);
        png.extend(crc.to_be_bytes());
    }
    let (w, h) = (width * scale, height * scale);
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {w} {}" font-family="sans-serif" font-size="14">"#,
        h + 30
    );
    let _ = writeln!(s, r#"<rect width="{w}" height="{}" fill="white"/>"#, h + 30);
    let _ = writeln!(
        s,
        r#"<text x="{}" y="20" text-anchor="middle">{}</text>"#,
        w / 2,
        esc(title)
    );
    let _ = writeln!(
        s,
        r#"<image x="0" y="30" width="{w}" height="{h}" style="image-rendering:pixelated" href="data:image/png;base64,{}"/>"#,
        base64(&png)
    );
    s.push_str("</svg>\n");
    s
}

fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &byte in bytes {
        crc ^= byte as u32;
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

fn base64(bytes: &[u8]) -> String {
    const ABC: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, &b)| n | (b as u32) << (16 - 8 * i));
        for i in 0..4 {
            out.push(if i <= chunk.len() {
                ABC[(n >> (18 - 6 * i) & 63) as usize] as char
            } else {
                '='
            });
        }
    }
    out
}

/// Pale fills for the boxes of a diagram, in the order of [`COLOURS`]' first four.
pub const PALE: [&str; 4] = ["#c6dbef", "#fcbba1", "#c7e9c0", "#fdd0a2"];
/// The fill of a masked lane, an idle thread or anything switched off.
pub const IDLE: &str = "#e5e5e5";

/// A diagram (boxes, lines, arrows and text on a white canvas) built up call by call and
/// written as SVG text with [`Drawing::to_svg`]. Fonts and colours match [`Chart`]'s.
pub struct Drawing {
    width: f64,
    height: f64,
    body: String,
}

impl Drawing {
    /// An empty canvas with `title` centred at the top.
    pub fn new(width: f64, height: f64, title: &str) -> Drawing {
        let mut d = Drawing {
            width,
            height,
            body: String::new(),
        };
        d.text_sized(width / 2.0, 22.0, "middle", 15.0, title);
        d
    }

    /// A box with a thin dark outline.
    pub fn rect(&mut self, x: f64, y: f64, w: f64, h: f64, fill: &str) {
        let _ = writeln!(
            self.body,
            r##"<rect x="{x:.1}" y="{y:.1}" width="{w:.1}" height="{h:.1}" fill="{fill}" stroke="#333"/>"##
        );
    }

    /// A box with `text` centred in it, at `size` px.
    pub fn cell(&mut self, (x, y, w, h): (f64, f64, f64, f64), fill: &str, size: f64, text: &str) {
        self.rect(x, y, w, h, fill);
        self.text_sized(x + w / 2.0, y + h / 2.0 + size * 0.35, "middle", size, text);
    }

    /// Text at 12 px; `anchor` is `start`, `middle` or `end`.
    pub fn text(&mut self, x: f64, y: f64, anchor: &str, text: &str) {
        self.text_sized(x, y, anchor, 12.0, text);
    }

    pub fn text_sized(&mut self, x: f64, y: f64, anchor: &str, size: f64, text: &str) {
        let _ = writeln!(
            self.body,
            r#"<text x="{x:.1}" y="{y:.1}" text-anchor="{anchor}" font-size="{size}">{}</text>"#,
            esc(text)
        );
    }

    pub fn line(&mut self, from: (f64, f64), to: (f64, f64), colour: &str) {
        let _ = writeln!(
            self.body,
            r#"<line x1="{:.1}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="{colour}" stroke-width="1.5"/>"#,
            from.0, from.1, to.0, to.1
        );
    }

    /// A dashed line, for barriers and ceilings.
    pub fn dashed(&mut self, from: (f64, f64), to: (f64, f64), colour: &str) {
        let _ = writeln!(
            self.body,
            r#"<line x1="{:.1}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="{colour}" stroke-width="1.5" stroke-dasharray="6 4"/>"#,
            from.0, from.1, to.0, to.1
        );
    }

    /// A line with an arrowhead at `to`.
    pub fn arrow(&mut self, from: (f64, f64), to: (f64, f64), colour: &str) {
        self.line(from, to, colour);
        let (dx, dy) = (to.0 - from.0, to.1 - from.1);
        let len = (dx * dx + dy * dy).sqrt().max(1e-9);
        let (ux, uy) = (dx / len, dy / len);
        let (bx, by) = (to.0 - 7.0 * ux, to.1 - 7.0 * uy);
        let _ = writeln!(
            self.body,
            r#"<polygon points="{:.1},{:.1} {:.1},{:.1} {:.1},{:.1}" fill="{colour}"/>"#,
            to.0,
            to.1,
            bx - 3.5 * uy,
            by + 3.5 * ux,
            bx + 3.5 * uy,
            by - 3.5 * ux
        );
    }

    pub fn circle(&mut self, centre: (f64, f64), radius: f64, fill: &str) {
        let _ = writeln!(
            self.body,
            r##"<circle cx="{:.1}" cy="{:.1}" r="{radius}" fill="{fill}" stroke="#333"/>"##,
            centre.0, centre.1
        );
    }

    pub fn to_svg(&self) -> String {
        let (w, h) = (self.width, self.height);
        format!(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {w} {h}\" font-family=\"sans-serif\" font-size=\"12\">\n\
             <rect width=\"{w}\" height=\"{h}\" fill=\"white\"/>\n{}</svg>\n",
            self.body
        )
    }
}

/// The text of the recorded output (or results table) a figure is drawn from; one sentence
/// and exit status 2 if it cannot be read.
pub fn read_recording(path: &str) -> String {
    std::fs::read_to_string(path)
        .unwrap_or_else(|e| crate::cli::fail(&format!("cannot read {path}: {e}")))
}

/// The GPU's name from a recording's `GPU: NAME (compute capability ...)` line.
pub fn recorded_gpu(text: &str) -> Option<&str> {
    text.lines()
        .find_map(|l| l.strip_prefix("GPU: "))
        .and_then(|l| l.split(" (").next())
}
