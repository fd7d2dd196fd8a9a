//! Chapter 7's imaging domain, kept apart from the support library every chapter shares:
//! - [`sky`]: the made-up observation, the pixels of a square image and their upload;
//! - [`mirrors`]: steps 9 and 10, groups of four mirrored pixels (±l, ±m) of a square image;
//! - [`rectangle`]: the same groups on a rectangle of pixels (the challenge), and the rule that
//!   places every pixel of either shape, a square being a rectangle of equal sides;
//! - here, what those share: the quadrant of directions the mirrored kernels read, the upload
//!   of an observation with the pixels it is imaged at, and the point sources that check each
//!   of a group's four mirror images.

pub mod mirrors;
pub mod rectangle;
pub mod sky;

/// The typed launchers of one of chapter 7's imaging kernel files, with what [`sky`],
/// [`mirrors`] and [`rectangle`] need of them: `course::imaging_launchers!(f32)` in a program
/// declares `mod ch07_imaging`, the launchers of `kernels/ch07-imaging.cu` (see
/// [`crate::kernels!`]). The other files are `f64`, `mirrors` and `rectangle`. The library
/// itself only names traits ([`sky::ImageKernel`], [`mirrors::MirrorKernels`],
/// [`rectangle::GroupsKernel`], [`rectangle::PlaceKernel`]), so that editing a kernel file
/// rebuilds the programs that launch it and not every program of the book.
#[macro_export]
macro_rules! imaging_launchers {
    (f32) => {
        /// `kernels/ch07-imaging.cu`: steps 2 to 8, every kernel launched like `image_f32`.
        mod ch07_imaging {
            $crate::kernels!("ch07-imaging.cu");
            $crate::imaging_launchers!(@image f32, ImageF32, like_image_f32, "ch07-imaging.cu");
        }
    };
    (f64) => {
        /// `kernels/ch07-imaging-f64.cu`: the first kernel and step 1, launched like `image_first`.
        mod ch07_imaging_f64 {
            $crate::kernels!("ch07-imaging-f64.cu");
            $crate::imaging_launchers!(@image f64, ImageFirst, like_image_first, "ch07-imaging-f64.cu");
        }
    };
    (@image $t:ty, $launcher:ident, $like:ident, $file:literal) => {
        impl $crate::imaging::sky::ImageKernel<$t> for $launcher {
            fn image(
                &self,
                stream: &::cudarc::driver::CudaStream,
                config: ::cudarc::driver::LaunchConfig,
                d: &$crate::imaging::sky::OnGpu<$t>,
                img: &mut ::cudarc::driver::CudaSlice<[$t; 2]>,
            ) -> Result<(), $crate::launch::LaunchError> {
                let (ls, ms, ns) = (&d.ls, &d.ms, &d.ns);
                let (us, vs, ws) = (&d.us, &d.vs, &d.ws);
                self.launch(stream, config, ls, ms, ns, us, vs, ws, &d.vis, d.inv_n, img)
            }
        }

        impl Kernels {
            /// The kernel called `name`; one sentence and exit status 1 if the file has none.
            #[allow(dead_code)]
            pub fn image(&self, name: &str) -> &$launcher {
                $crate::imaging::sky::named(self.$like(name), $file, name)
            }
        }
    };
    (mirrors) => {
        /// `kernels/ch07-imaging-mirrors.cu`: steps 9 and 10, and the kernel that places their
        /// groups.
        mod ch07_imaging_mirrors {
            $crate::kernels!("ch07-imaging-mirrors.cu");

            use ::cudarc::driver::{CudaFunction, CudaSlice, CudaStream, LaunchConfig};
            use $crate::imaging::{Quadrant, mirrors::Shape, sky::OnGpu};
            use $crate::launch::LaunchError;

            impl Kernels {
                fn tables(&self, shape: Shape) -> &ImageTables1 {
                    self.like_image_tables_1(shape.kernel())
                        .expect("Shape::kernel names a kernel of the file")
                }
            }

            impl $crate::imaging::mirrors::MirrorKernels for Kernels {
                fn function(&self, shape: Shape) -> &CudaFunction {
                    match shape {
                        Shape::Mirrors => &self.image_mirrors.function,
                        Shape::Tables { .. } => &self.tables(shape).function,
                    }
                }

                fn launch_groups(
                    &self,
                    shape: Shape,
                    stream: &CudaStream,
                    config: LaunchConfig,
                    q: &Quadrant,
                    d: &OnGpu<f32>,
                    parts: &mut CudaSlice<[f32; 2]>,
                ) -> Result<(), LaunchError> {
                    let (ls, ms, ns, side) = (&q.ls, &q.ms, &q.ns, q.width);
                    let (us, vs, ws, vis) = (&d.us, &d.vs, &d.ws, &d.vis);
                    match shape {
                        Shape::Mirrors => self
                            .image_mirrors
                            .launch(stream, config, ls, ms, ns, side, us, vs, ws, vis, parts),
                        Shape::Tables { .. } => self
                            .tables(shape)
                            .launch(stream, config, ls, ms, ns, side, us, vs, ws, vis, parts),
                    }
                }

                fn place_function(&self) -> &CudaFunction {
                    &self.image_place_groups.function
                }

                fn launch_place(
                    &self,
                    stream: &CudaStream,
                    config: LaunchConfig,
                    parts: &CudaSlice<[f32; 2]>,
                    n_parts: i32,
                    side: i32,
                    inv_n: f32,
                    img: &mut CudaSlice<[f32; 2]>,
                ) -> Result<(), LaunchError> {
                    let place = &self.image_place_groups;
                    place.launch(stream, config, parts, n_parts, side, inv_n, img)
                }
            }
        }
    };
    (rectangle) => {
        /// `kernels/ch07-imaging-rectangle.cu`: the groups of a rectangle, and their placing.
        mod ch07_imaging_rectangle {
            $crate::kernels!("ch07-imaging-rectangle.cu");

            use ::cudarc::driver::{CudaSlice, CudaStream, LaunchConfig};
            use $crate::imaging::{Quadrant, sky::OnGpu};
            use $crate::launch::LaunchError;

            impl $crate::imaging::rectangle::GroupsKernel for ImageRectangle {
                fn launch_groups(
                    &self,
                    stream: &CudaStream,
                    config: LaunchConfig,
                    q: &Quadrant,
                    d: &OnGpu<f32>,
                    parts: &mut CudaSlice<[f32; 2]>,
                ) -> Result<(), LaunchError> {
                    let (ls, ms, ns, width, height) = (&q.ls, &q.ms, &q.ns, q.width, q.height);
                    let (us, vs, ws) = (&d.us, &d.vs, &d.ws);
                    let vis = &d.vis;
                    self.launch(stream, config, ls, ms, ns, width, height, us, vs, ws, vis, parts)
                }
            }

            impl $crate::imaging::rectangle::PlaceKernel for ImagePlaceRectangle {
                fn launch_place(
                    &self,
                    stream: &CudaStream,
                    config: LaunchConfig,
                    q: &Quadrant,
                    parts: &CudaSlice<[f32; 2]>,
                    inv_n: f32,
                    img: &mut CudaSlice<[f32; 2]>,
                ) -> Result<(), LaunchError> {
                    self.launch(stream, config, parts, q.width, q.height, inv_n, img)
                }
            }
        }
    };
}

use std::sync::Arc;

use cudarc::driver::{CudaSlice, CudaStream, DeviceRepr, DriverError};

use rectangle::Rectangle;
use sky::{Observation, OnGpu, observe_point_source};

/// The directions the mirrored kernels read, on the GPU in f32 (from
/// [`Rectangle::quadrant`]): l for each column offset, m for each row offset and n′ for each
/// group, with the image's size as the kernels take it (a square's side is `width`).
pub struct Quadrant {
    pub ls: CudaSlice<f32>,
    pub ms: CudaSlice<f32>,
    pub ns: CudaSlice<f32>,
    pub width: i32,
    pub height: i32,
}

impl Quadrant {
    /// The image these directions are for.
    pub fn rect(&self) -> Rectangle {
        Rectangle {
            width: self.width as usize,
            height: self.height as usize,
        }
    }
}

/// Copy the quadrant of `rect` to the GPU.
pub fn upload_quadrant(stream: &Arc<CudaStream>, rect: Rectangle) -> Result<Quadrant, DriverError> {
    let (ls, ms, ns) = rect.quadrant();
    let to = |x: f64| x as f32;
    Ok(Quadrant {
        ls: send(stream, &ls, to)?,
        ms: send(stream, &ms, to)?,
        ns: send(stream, &ns, to)?,
        width: index(rect.width, "columns"),
        height: index(rect.height, "rows"),
    })
}

/// Copy `obs` and the pixels `(ls, ms, ns)` (row by row, as [`Rectangle::pixel_directions`]
/// gives them) to the GPU, converted by `to`: what the one-pixel-per-thread kernels read.
pub fn upload_pixels<T: DeviceRepr + Copy>(
    stream: &Arc<CudaStream>,
    obs: &Observation,
    (ls, ms, ns): (Vec<f64>, Vec<f64>, Vec<f64>),
    to: fn(f64) -> T,
) -> Result<OnGpu<T>, DriverError> {
    let vis: Vec<[T; 2]> = obs.vis.iter().map(|z| [to(z.re), to(z.im)]).collect();
    Ok(OnGpu {
        ls: send(stream, &ls, to)?,
        ms: send(stream, &ms, to)?,
        ns: send(stream, &ns, to)?,
        n_px: index(ls.len(), "pixels"),
        us: send(stream, &obs.u, to)?,
        vs: send(stream, &obs.v, to)?,
        ws: send(stream, &obs.w, to)?,
        vis: stream.clone_htod(&vis)?,
        n_vis: index(obs.vis.len(), "visibilities"),
        inv_n: to(1.0 / obs.vis.len() as f64),
    })
}

fn send<T: DeviceRepr + Copy>(
    stream: &Arc<CudaStream>,
    xs: &[f64],
    to: fn(f64) -> T,
) -> Result<CudaSlice<T>, DriverError> {
    stream.clone_htod(&xs.iter().map(|&x| to(x)).collect::<Vec<T>>())
}

/// A count as the kernels' `int`; one sentence and exit status 2 if it does not fit.
fn index(count: usize, what: &str) -> i32 {
    i32::try_from(count).unwrap_or_else(|_| {
        crate::cli::fail(&format!(
            "{count} {what} is more than the kernels' int indices hold"
        ))
    })
}

// ANCHOR: point_sources
/// Visibilities of a point source: more than one tile of 256, and not a whole number of tiles
/// or of warps, so that every kernel's last, partial tile is tested too.
pub const POINT_VIS: usize = 300;

/// Pixels (column, row) for one point source in each quadrant, away from the axes (where a
/// group's images coincide) and from the centre (where every phase is 0), in the order of a
/// group's four images: (+l, +m), (−l, +m), (+l, −m), (−l, −m). A sign slip in any one image
/// moves its point source's pixel away from 1.
pub fn point_pixels(rect: Rectangle) -> [(usize, usize); 4] {
    let (w, h) = (rect.width, rect.height);
    [(3, 2), (1, 2), (3, 1), (1, 1)].map(|(c, r)| (c * w / 4, r * h / 3))
}

/// 1 Jy alone and without noise at each of [`point_pixels`]: imaged on its own, each gives
/// exactly 1 at its pixel (one visibility left out would be off by 1/[`POINT_VIS`]).
pub fn observe_point_sources(rect: Rectangle) -> [Observation; 4] {
    point_pixels(rect).map(|at| observe_point_source(POINT_VIS, rect.direction_of(at)))
}

/// The worst distance from 1 of the point sources' pixels, given `image(k)`, the image of
/// point source `k` (row by row); a NaN is kept, as the worst.
pub fn worst_distance_from_one(
    rect: Rectangle,
    mut image: impl FnMut(usize) -> Vec<[f64; 2]>,
) -> f64 {
    let mut worst = 0.0f64;
    for (k, (col, row)) in point_pixels(rect).into_iter().enumerate() {
        let [re, im] = image(k)[row * rect.width + col];
        let e = (re - 1.0).hypot(im);
        if e.is_nan() || e > worst {
            worst = e; // f64::max would drop a NaN
        }
    }
    worst
}
// ANCHOR_END: point_sources

#[cfg(test)]
mod kernel_text;

#[cfg(test)]
mod tests {
    use super::*;

    /// Each point source lies in its own quadrant, off both axes, on the image, in the order
    /// of a group's images, for odd and even sides down to the smallest the programs take.
    #[test]
    fn one_point_source_in_each_quadrant() {
        for (width, height) in [(8, 8), (9, 9), (64, 64), (700, 700), (70, 41), (700, 400)] {
            let rect = Rectangle { width, height };
            for (image, (col, row)) in point_pixels(rect).into_iter().enumerate() {
                assert!(col < width && row < height);
                let (l, m) = rect.direction_of((col, row));
                let signs = (l < 0.0, m < 0.0);
                assert_eq!(signs, (image % 2 == 1, image / 2 == 1), "{width}x{height}");
                assert!(l != 0.0 && m != 0.0, "{width}x{height}: on an axis");
            }
        }
    }
}
