//! CubeCL 0.10.0 feasibility probe: elementwise add, plane_sum, shared memory,
//! run on the wgpu runtime (lavapipe on CPU here), optionally on CUDA.
use cubecl::prelude::*;

/// Elementwise adder: out[i] = a[i] + b[i].
#[cube(launch)]
fn add_kernel<F: Float>(a: &Array<F>, b: &Array<F>, out: &mut Array<F>) {
    if ABSOLUTE_POS < out.len() {
        out[ABSOLUTE_POS] = a[ABSOLUTE_POS] + b[ABSOLUTE_POS];
    }
}

/// Plane (warp/subgroup) reduction: every unit gets the sum over its plane,
/// and records the plane size the hardware reports.
#[cube(launch)]
fn plane_sum_kernel(input: &Array<f32>, out: &mut Array<f32>, plane_dims: &mut Array<u32>) {
    let v = input[ABSOLUTE_POS];
    out[ABSOLUTE_POS] = plane_sum(v);
    plane_dims[ABSOLUTE_POS] = PLANE_DIM;
}

/// Shared-memory block reduction (tree reduction, CUBE_DIM must be a power of two
/// equal to `block`): out[cube] = sum of the cube's inputs.
#[cube(launch)]
fn block_sum_kernel(input: &Array<f32>, out: &mut Array<f32>, #[comptime] block: usize) {
    let mut sm = SharedMemory::<f32>::new(block);
    let tid = UNIT_POS;
    sm[tid as usize] = input[ABSOLUTE_POS];
    sync_cube();
    // runtime loop variable (CUBE_DIM is a runtime builtin, u32)
    let mut stride = CUBE_DIM / 2;
    while stride > 0 {
        if tid < stride {
            sm[tid as usize] = sm[tid as usize] + sm[(tid + stride) as usize];
        }
        sync_cube();
        stride = stride / 2;
    }
    if tid == 0 {
        out[CUBE_POS] = sm[0];
    }
}

fn run<R: Runtime>(device: &R::Device) -> bool {
    let client = R::client(device);
    let props = client.properties();
    println!(
        "[{}] plane_size_min={} plane_size_max={} max_shared={} max_units_per_cube={} plane features={:?}",
        R::name(&client),
        props.hardware.plane_size_min,
        props.hardware.plane_size_max,
        props.hardware.max_shared_memory_size,
        props.hardware.max_units_per_cube,
        client.features().plane,
    );
    let mut ok = true;

    // ---- 1. adder ----
    let n: usize = 1000;
    let a: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let b: Vec<f32> = (0..n).map(|i| 0.5 * i as f32 + 1.0).collect();
    let a_h = client.create_from_slice(f32::as_bytes(&a));
    let b_h = client.create_from_slice(f32::as_bytes(&b));
    let o_h = client.empty(n * core::mem::size_of::<f32>());
    let block = 256u32;
    let cubes = (n as u32).div_ceil(block);
    add_kernel::launch::<f32, R>(
        &client,
        CubeCount::Static(cubes, 1, 1),
        CubeDim::new_1d(block),
        unsafe { ArrayArg::from_raw_parts(a_h, n) },
        unsafe { ArrayArg::from_raw_parts(b_h, n) },
        unsafe { ArrayArg::from_raw_parts(o_h.clone(), n) },
    );
    let bytes = client.read_one_unchecked(o_h);
    let out = f32::from_bytes(&bytes);
    let bad = (0..n).filter(|&i| out[i] != a[i] + b[i]).count();
    println!("add: n={n} first={:?} last={} mismatches={bad}", &out[..4], out[n - 1]);
    ok &= bad == 0;

    // ---- 2. plane_sum ----
    let m: usize = 64;
    let x: Vec<f32> = (0..m).map(|i| i as f32).collect();
    let x_h = client.create_from_slice(f32::as_bytes(&x));
    let s_h = client.empty(m * 4);
    let d_h = client.empty(m * 4);
    plane_sum_kernel::launch::<R>(
        &client,
        CubeCount::Static(1, 1, 1),
        CubeDim::new_1d(m as u32),
        unsafe { ArrayArg::from_raw_parts(x_h, m) },
        unsafe { ArrayArg::from_raw_parts(s_h.clone(), m) },
        unsafe { ArrayArg::from_raw_parts(d_h.clone(), m) },
    );
    let s_bytes = client.read_one_unchecked(s_h);
    let d_bytes = client.read_one_unchecked(d_h);
    let s = f32::from_bytes(&s_bytes);
    let d = u32::from_bytes(&d_bytes);
    let pd = d[0] as usize;
    let mut plane_bad = pd == 0;
    if pd > 0 {
        for i in 0..m {
            let base = (i / pd) * pd;
            let expect: f32 = x[base..(base + pd).min(m)].iter().sum();
            if s[i] != expect {
                plane_bad = true;
            }
        }
    }
    println!("plane_sum: PLANE_DIM reported by kernel={pd} sums={:?} -> {}", &s[..m.min(pd.max(1) * 2 + 1)], if plane_bad { "WRONG" } else { "ok" });
    ok &= !plane_bad;

    // ---- 3. shared-memory block reduction ----
    let k: usize = 4 * 256;
    let y: Vec<f32> = (0..k).map(|i| (i % 7) as f32).collect();
    let y_h = client.create_from_slice(f32::as_bytes(&y));
    let r_h = client.empty(4 * 4);
    block_sum_kernel::launch::<R>(
        &client,
        CubeCount::Static(4, 1, 1),
        CubeDim::new_1d(256),
        unsafe { ArrayArg::from_raw_parts(y_h, k) },
        unsafe { ArrayArg::from_raw_parts(r_h.clone(), 4) },
        256usize,
    );
    let r_bytes = client.read_one_unchecked(r_h);
    let r = f32::from_bytes(&r_bytes);
    let expect: Vec<f32> = (0..4).map(|c| y[c * 256..(c + 1) * 256].iter().sum()).collect();
    println!("block_sum (shared mem): got={r:?} expected={expect:?} -> {}", if r == &expect[..] { "ok" } else { "WRONG" });
    ok &= r == &expect[..];
    ok
}

fn main() {
    let which = std::env::args().nth(1).unwrap_or_else(|| "wgpu".into());
    let ok = match which.as_str() {
        "wgpu" => run::<cubecl::wgpu::WgpuRuntime>(&Default::default()),
        "wgpu-cpu" => run::<cubecl::wgpu::WgpuRuntime>(&cubecl::wgpu::WgpuDevice::Cpu),
        "cuda" => run::<cubecl::cuda::CudaRuntime>(&Default::default()),
        other => panic!("unknown runtime {other}"),
    };
    println!("ALL {}", if ok { "OK" } else { "FAILED" });
    std::process::exit(if ok { 0 } else { 1 });
}
