//! Images as PNG files: an image's brightness, stretched by a square root, in a colour map
//! that runs from black through purple and orange to pale yellow (like matplotlib's inferno).
//! The values are in the order of [`crate::imaging::sky::pixels`]: row by row, row 0 at the bottom
//! (smallest m), so the picture has north up as the sky does.
//!
//! Each file carries a note, a PNG text chunk, saying what drew it: the book's figure test
//! reads it to redraw the figure (see `tests/outputs.rs`).

use std::io;
use std::path::Path;

/// The keyword of the text chunk that holds the note.
const NOTE_KEY: &str = "Comment";

/// Colours at nine evenly spaced levels from 0 to 1; levels between are interpolated.
const COLOURS: [[f64; 3]; 9] = [
    [0.0, 0.0, 4.0],
    [31.0, 12.0, 72.0],
    [85.0, 15.0, 109.0],
    [136.0, 34.0, 106.0],
    [186.0, 54.0, 85.0],
    [227.0, 89.0, 51.0],
    [249.0, 140.0, 10.0],
    [249.0, 201.0, 50.0],
    [252.0, 255.0, 164.0],
];

/// The colour of `level` in 0..=1.
fn colour(level: f64) -> [u8; 3] {
    let x = level.clamp(0.0, 1.0) * (COLOURS.len() - 1) as f64;
    let below = (x.floor() as usize).min(COLOURS.len() - 2);
    let t = x - below as f64;
    let (a, b) = (COLOURS[below], COLOURS[below + 1]);
    [0, 1, 2].map(|k| (a[k] + t * (b[k] - a[k])).round() as u8)
}

/// The RGB bytes of the picture, top row first: each value's square root over the square root
/// of the largest value (the brightest pixel is 1), negative values black. The square root
/// lets faint extended emission show beside a bright compact source.
fn rgb_rows(values: &[f64], width: usize, height: usize) -> Vec<u8> {
    let peak = values.iter().copied().fold(0.0, f64::max);
    let scale = if peak > 0.0 { 1.0 / peak.sqrt() } else { 0.0 };
    let mut bytes = Vec::with_capacity(3 * width * height);
    for row in (0..height).rev() {
        for &v in &values[row * width..(row + 1) * width] {
            bytes.extend(colour(v.max(0.0).sqrt() * scale));
        }
    }
    bytes
}

/// A `width` × `height` image of `values` as the bytes of a PNG file, with `note` in it.
/// Panics unless there are `width × height` values (a programming error, not bad input).
pub fn encode(values: &[f64], width: usize, height: usize, note: &str) -> Vec<u8> {
    assert_eq!(
        values.len(),
        width * height,
        "an image needs width × height values"
    );
    let mut file = Vec::new();
    let to_u32 = |n: usize| u32::try_from(n).expect("a PNG side fits in 32 bits");
    let mut encoder = ::png::Encoder::new(&mut file, to_u32(width), to_u32(height));
    encoder.set_color(::png::ColorType::Rgb);
    encoder.set_depth(::png::BitDepth::Eight);
    encoder.set_compression(::png::Compression::High);
    // Writing to memory cannot fail, and a valid header and a note in Latin-1 always encode.
    encoder
        .add_text_chunk(NOTE_KEY.into(), note.into())
        .expect("the note is Latin-1 text");
    let mut writer = encoder.write_header().expect("a PNG header");
    writer
        .write_image_data(&rgb_rows(values, width, height))
        .expect("the image data");
    writer.finish().expect("the end of the PNG");
    file
}

/// Write a `width` × `height` image of `values` to the PNG file `path`. Its note says which
/// command wrote it: `written by `NAME ARGS``.
pub fn write_image(path: &Path, values: &[f64], width: usize, height: usize) -> io::Result<()> {
    let program = crate::cli::program_name();
    let command: Vec<String> = std::iter::once(program)
        .chain(std::env::args().skip(1))
        .collect();
    let note = format!("written by `{}`", command.join(" "));
    std::fs::write(path, encode(values, width, height, &note))
}

/// The note in a PNG file's bytes, if it has one.
pub fn note(file: &[u8]) -> Option<String> {
    let reader = ::png::Decoder::new(io::Cursor::new(file))
        .read_info()
        .ok()?;
    reader
        .info()
        .uncompressed_latin1_text
        .iter()
        .find(|chunk| chunk.keyword == NOTE_KEY)
        .map(|chunk| chunk.text.clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colour_map_ends_and_middle() {
        assert_eq!(colour(-1.0), [0, 0, 4]);
        assert_eq!(colour(1.0), [252, 255, 164]);
        assert_eq!(colour(0.5), [186, 54, 85]);
        // Halfway between the first two levels.
        assert_eq!(colour(1.0 / 16.0), [16, 6, 38]);
    }

    #[test]
    fn picture_round_trips_with_its_note() {
        // Two rows: the bottom one (row 0) dark and negative, the top one at the peak.
        let values = [-3.0, 0.0, 4.0, 1.0];
        let file = encode(&values, 2, 2, "drawn by `test`");
        assert_eq!(note(&file).as_deref(), Some("drawn by `test`"));
        let mut reader = ::png::Decoder::new(io::Cursor::new(&file[..]))
            .read_info()
            .expect("a readable PNG");
        let mut pixels = vec![0; reader.output_buffer_size().expect("a size")];
        reader.next_frame(&mut pixels).expect("one frame");
        // Top row first: the peak (4, pale yellow) and sqrt(1/4) = 0.5 of it; then black twice.
        assert_eq!(
            pixels,
            [252, 255, 164, 186, 54, 85, 0, 0, 4, 0, 0, 4].to_vec()
        );
    }
}
