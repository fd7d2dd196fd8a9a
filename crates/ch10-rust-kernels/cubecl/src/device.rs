//! Finding where the kernels run, and the few things every program does there: copy in, copy
//! out, fill an output with poison, wait for the GPU.
//!
//! CubeCL's CUDA runtime opens GPU 0's primary context, the very context cudarc opens, so the C++
//! twins run beside the CubeCL kernels in one process, each on its own stream.

use std::sync::Arc;

use course::exit::{EXIT_CUDA_FAILED, EXIT_NO_GPU, fail};
use course::gpu::find_gpu;
use cubecl::prelude::*;
use cubecl::server::Handle;
use cudarc::driver::CudaContext;

use crate::args::Runtime as Which;

/// The device a program runs on, opened.
pub enum Device {
    Cuda(Arc<CudaContext>),
    Wgpu(wgpu::AdapterInfo),
}

/// Open the runtime asked for; without `--runtime`, CUDA where there is an NVIDIA GPU, else
/// wgpu. No device at all: one sentence and the skip status, [`EXIT_NO_GPU`].
pub fn open(asked: Option<Which>) -> Device {
    match asked {
        Some(Which::Cuda) => {
            let ctx = find_gpu().unwrap_or_else(|why| fail(why.exit_status(), &why.sentence()));
            cuda_headers_or_exit();
            Device::Cuda(ctx)
        }
        Some(Which::Wgpu) => Device::Wgpu(wgpu_adapter().unwrap_or_else(|| {
            fail(
                EXIT_NO_GPU,
                "this program's wgpu runtime needs a GPU driver that wgpu can use (Vulkan, \
                 Metal or DX12), and wgpu found none; without a GPU, Mesa's lavapipe \
                 (Debian's mesa-vulkan-drivers) is one.",
            )
        })),
        None => match find_gpu() {
            Ok(ctx) => {
                cuda_headers_or_exit();
                Device::Cuda(ctx)
            }
            Err(_) => Device::Wgpu(wgpu_adapter().unwrap_or_else(|| {
                fail(
                    EXIT_NO_GPU,
                    "this program needs an NVIDIA GPU or a GPU driver that wgpu can use \
                     (Vulkan, Metal or DX12), and found neither.",
                )
            })),
        },
    }
}

/// CubeCL's CUDA runtime compiles each kernel with NVRTC against the CUDA toolkit's headers,
/// and panics where it finds no toolkit: say so first, in one sentence.
fn cuda_headers_or_exit() {
    if cubecl::cuda::install::cuda_path().is_none() {
        fail(
            EXIT_CUDA_FAILED,
            "CubeCL's CUDA runtime compiles its kernels against the CUDA toolkit's headers, \
             and found no toolkit: set CUDA_PATH to one (the folder that holds include/).",
        );
    }
}

/// The adapter CubeCL's wgpu runtime takes by default (the same request, the same backend), if
/// there is one: CubeCL itself panics when there is none.
fn wgpu_adapter() -> Option<wgpu::AdapterInfo> {
    use cubecl::wgpu::{AutoGraphicsApi, GraphicsApi};
    let instance = wgpu::Instance::new(wgpu::InstanceDescriptor {
        backends: AutoGraphicsApi::backend().into(),
        ..wgpu::InstanceDescriptor::new_without_display_handle()
    });
    let options = wgpu::RequestAdapterOptions {
        power_preference: wgpu::PowerPreference::HighPerformance,
        force_fallback_adapter: false,
        compatible_surface: None,
    };
    let adapter = cubecl::future::block_on(instance.request_adapter(&options)).ok()?;
    Some(adapter.get_info())
}

/// A CubeCL client, and on CUDA the context that the C++ twins use.
pub struct Gpu<R: Runtime> {
    pub client: ComputeClient<R>,
    pub cuda: Option<Arc<CudaContext>>,
}

impl<R: Runtime> Gpu<R> {
    /// Print which runtime and which device, and the plane size (a warp on NVIDIA GPUs; on
    /// lavapipe it follows the CPU's vector width).
    pub fn describe(&self, device: &Device) {
        match device {
            Device::Cuda(ctx) => {
                println!("runtime: CubeCL on CUDA");
                println!("{}", course::gpu::describe(ctx));
            }
            Device::Wgpu(info) => {
                println!("runtime: CubeCL on wgpu");
                println!(
                    "GPU: {}, {} through {}",
                    info.name,
                    kind(info),
                    info.backend
                );
            }
        }
        let hardware = &self.client.properties().hardware;
        println!(
            "plane size: {} units (this machine)",
            hardware.plane_size_max
        );
    }

    pub fn upload<T: CubeElement>(&self, values: &[T]) -> Handle {
        self.client.create_from_slice(T::as_bytes(values))
    }

    /// A buffer of `bytes` bytes, each 0xFF: NaN for floats, the largest value for unsigned
    /// integers. An element that a kernel forgets cannot pass for a result.
    pub fn poisoned(&self, bytes: usize) -> Handle {
        self.client.create_from_slice(&vec![0xFF; bytes])
    }

    pub fn download<T: CubeElement>(&self, handle: Handle) -> Vec<T> {
        let bytes = self
            .client
            .read_one(handle)
            .unwrap_or_else(|e| fail(EXIT_CUDA_FAILED, &format!("could not read back: {e}")));
        T::from_bytes(&bytes).to_vec()
    }

    /// Wait until the GPU has finished everything queued; a kernel that failed says so here.
    pub fn sync(&self) {
        if let Err(e) = cubecl::future::block_on(self.client.sync()) {
            fail(EXIT_CUDA_FAILED, &format!("a kernel failed: {e}"));
        }
    }
}

fn kind(info: &wgpu::AdapterInfo) -> &'static str {
    match info.device_type {
        wgpu::DeviceType::DiscreteGpu => "a discrete GPU",
        wgpu::DeviceType::IntegratedGpu => "an integrated GPU",
        wgpu::DeviceType::VirtualGpu => "a virtual GPU",
        wgpu::DeviceType::Cpu => "the CPU",
        wgpu::DeviceType::Other => "a device",
    }
}
