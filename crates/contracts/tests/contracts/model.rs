//! What every model uses: a launch as a contract sees it, what a kernel reaches under it, the
//! draws of launches, and the property itself.

use std::cell::Cell;

use course::launch::{ClusterConfig, LaunchError, Span};
use cudarc::driver::LaunchConfig;
use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestCaseError, TestError, TestRng, TestRunner};

/// The seed of the draws: fixed, or `COURSE_PROPTEST_SEED`.
pub const SEED: u64 = 34;
/// Launches drawn per launcher.
pub const CASES: u32 = 1500;
pub const INT_MAX: i128 = i32::MAX as i128;
pub const UINT_MAX: i128 = u32::MAX as i128;

/// One launch, as a contract sees it.
#[derive(Clone, Debug)]
pub struct Launch {
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub shared: u32,
    /// Each buffer's length in elements, in the kernel's parameter order.
    pub lens: Vec<u64>,
    /// Each buffer's address modulo 256 (a view at an offset starts off the boundary).
    pub offsets: Vec<u64>,
    /// The scalar arguments the caller passes (not the derived ones), in order.
    pub args: Vec<i64>,
    /// Blocks per cluster along x, y, z, for a `clusters` contract ([`Self::clustered`]);
    /// `[1, 1, 1]` for any other.
    pub cluster: [u32; 3],
}

impl Launch {
    pub fn config(&self) -> LaunchConfig {
        LaunchConfig {
            grid_dim: (self.grid[0], self.grid[1], self.grid[2]),
            block_dim: (self.block[0], self.block[1], self.block[2]),
            shared_mem_bytes: self.shared,
        }
    }

    /// The launch as a `clusters` contract takes it.
    pub fn clustered(&self) -> ClusterConfig {
        let [x, y, z] = self.cluster;
        ClusterConfig {
            launch: self.config(),
            cluster_dim: (x, y, z),
        }
    }

    pub fn span(&self, i: usize) -> Span {
        Span {
            len: self.lens[i] as usize,
            address: 0x7f00_0000_0000 + self.offsets[i],
        }
    }

    /// Scalar argument `i` as the kernel's type, or refused like a value that does not fit.
    pub fn arg<T: TryFrom<i64>>(&self, i: usize) -> Result<T, LaunchError> {
        T::try_from(self.args[i]).map_err(|_| LaunchError::Unrepresentable {
            kernel: "test",
            param: "argument",
            value: self.args[i] as i128,
        })
    }

    /// `gridDim.x * blockDim.x`.
    pub fn tx(&self) -> u64 {
        u64::from(self.grid[0]) * u64::from(self.block[0])
    }

    pub fn threads(&self) -> u64 {
        self.grid
            .iter()
            .chain(&self.block)
            .map(|&d| u64::from(d))
            .product()
    }

    /// What the driver launches at all: blocks of at most 1024 threads (z at most 64), grids
    /// of at most 2^31 - 1 by 65535 by 65535, no dimension 0.
    pub fn driver_accepts(&self) -> bool {
        let [bx, by, bz] = self.block.map(u64::from);
        self.grid.iter().chain(&self.block).all(|&d| d >= 1)
            && bx * by * bz <= 1024
            && bz <= 64
            && self.grid[0] <= i32::MAX as u32
            && self.grid[1] <= 65535
            && self.grid[2] <= 65535
    }
}

/// How far a kernel reaches under one launch.
#[derive(Debug, Default)]
pub struct Reach {
    /// Per buffer: one past the largest element it may touch (0: none).
    pub extents: Vec<u64>,
    /// Per buffer: whether it is loaded or stored 16 bytes at a time.
    pub vectors: Vec<bool>,
    /// Each 32-bit index expression: what it is, its largest value, and the largest its type
    /// holds (`INT_MAX`, or `UINT_MAX` for an unsigned product).
    pub ints: Vec<(&'static str, i128, i128)>,
}

/// A kernel as the test models it.
pub struct Model {
    /// The launcher's kernels.
    pub kernels: &'static str,
    pub buffers: &'static [&'static str],
    /// The lines it mirrors: (kernel file, anchor), and the hash of their text.
    pub mirrors: &'static [(&'static str, &'static str)],
    pub hash: u64,
    /// Launches around the sizes that work, perturbed.
    pub draw: fn() -> BoxedStrategy<Launch>,
    /// The launcher's contract: the derived scalars, in the kernel's order.
    pub contract: fn(&Launch) -> Result<Vec<i64>, LaunchError>,
    /// Where the kernel reaches, given the derived scalars.
    pub reach: fn(&Launch, &[i64]) -> Reach,
}

// ---- drawing launches ----

/// A size: small, at a boundary, or anything up to 2^34.
pub fn size() -> BoxedStrategy<u64> {
    prop_oneof![
        6 => 0u64..=5000,
        1 => Just(0u64),
        1 => Just(1u64),
        3 => prop::sample::select(vec![
            (1 << 20) + 1,
            (1 << 30) - 1,
            1 << 30,
            (1 << 31) - 1024,
            (1 << 31) - 1,
            1 << 31,
            (1 << 31) + 1,
            (1 << 32) - 1,
            1 << 32,
        ]),
        1 => 0u64..(1 << 34),
    ]
    .boxed()
}

/// `v` most of the time, else one less, one more, or any size.
pub fn near(v: u64) -> BoxedStrategy<u64> {
    prop_oneof![
        30 => Just(v),
        1 => Just(v.saturating_sub(1)),
        1 => Just(v + 1),
        2 => size(),
    ]
    .boxed()
}

pub fn near_i64(v: i64) -> BoxedStrategy<i64> {
    prop_oneof![
        30 => Just(v),
        1 => Just(v - 1),
        1 => Just(v + 1),
        1 => Just(-1i64),
        1 => Just(i64::from(i32::MAX)),
        2 => size().prop_map(|s| s as i64),
    ]
    .boxed()
}

/// A grid dimension near `v`, or one of the sizes that overflow 32-bit indices.
pub fn grid_near(v: u64) -> BoxedStrategy<u32> {
    prop_oneof![
        12 => near(v.max(1)),
        1 => prop::sample::select(vec![(1u64 << 21) + 1, (1 << 22) + 1, (1 << 24) + 1, (1 << 31) - 1]),
    ]
    .prop_map(|g| g.min(u64::from(u32::MAX)) as u32)
    .boxed()
}

pub fn block_near(v: u32) -> BoxedStrategy<u32> {
    prop_oneof![
        12 => Just(v),
        1 => prop::sample::select(vec![1u32, 2, 31, 32, 33, 64, 128, 255, 256, 257, 512, 1024]),
    ]
    .boxed()
}

/// A view's start: on the buffer's boundary, or some elements in.
pub fn offset() -> BoxedStrategy<u64> {
    prop_oneof![30 => Just(0u64), 1 => Just(4u64), 1 => Just(8u64), 1 => Just(12u64), 1 => Just(16u64)]
        .boxed()
}

/// Launches around a natural one: every field kept, nudged or replaced, independently.
pub fn around(
    grid: [u64; 3],
    block: [u32; 3],
    lens: Vec<u64>,
    args: Vec<i64>,
) -> BoxedStrategy<Launch> {
    let buffers = lens.len();
    (
        (grid_near(grid[0]), grid_near(grid[1]), grid_near(grid[2])),
        (
            block_near(block[0]),
            block_near(block[1]),
            block_near(block[2]),
        ),
        prop_oneof![4 => Just(0u32), 1 => 0u32..=100_000],
        lens.into_iter().map(near).collect::<Vec<_>>(),
        prop::collection::vec(offset(), buffers),
        args.into_iter().map(near_i64).collect::<Vec<_>>(),
    )
        .prop_map(|(g, b, shared, lens, offsets, args)| Launch {
            grid: [g.0, g.1, g.2],
            block: [b.0, b.1, b.2],
            shared,
            lens,
            offsets,
            args,
            cluster: [1, 1, 1],
        })
        .boxed()
}

/// A one-dimensional launch over `n` elements, `per_thread` each, in blocks of `block`.
pub fn one_d(
    block: u32,
    per_thread: u64,
    lens: fn(u64) -> Vec<u64>,
    args: fn(u64) -> Vec<i64>,
) -> BoxedStrategy<Launch> {
    size()
        .prop_flat_map(move |n| {
            let blocks = n.div_ceil(u64::from(block) * per_thread);
            around([blocks, 1, 1], [block, 1, 1], lens(n), args(n))
        })
        .boxed()
}

pub fn ceil(a: u64, b: u64) -> u64 {
    a.div_ceil(b)
}

pub fn derived(r: Result<(i32,), LaunchError>) -> Result<Vec<i64>, LaunchError> {
    r.map(|(n,)| vec![i64::from(n)])
}

// ---- the property ----

pub fn seed() -> u64 {
    match std::env::var("COURSE_PROPTEST_SEED") {
        Ok(s) => s
            .parse()
            .unwrap_or_else(|_| panic!("COURSE_PROPTEST_SEED={s} is not a number")),
        Err(_) => SEED,
    }
}

/// What is wrong with an accepted launch, or `None`.
pub fn leaves_its_buffers(model: &Model, l: &Launch, derived: &[i64]) -> Option<String> {
    let reach = (model.reach)(l, derived);
    for (i, name) in model.buffers.iter().enumerate() {
        if reach.extents[i] > l.lens[i] {
            return Some(format!(
                "it reaches element {} of `{name}`, whose length is {}",
                reach.extents[i] - 1,
                l.lens[i]
            ));
        }
        if reach.vectors[i] && reach.extents[i] > 0 && l.offsets[i] % 16 != 0 {
            return Some(format!(
                "it loads or stores `{name}` 16 bytes at a time, but `{name}` starts {} bytes past a 16-byte boundary",
                l.offsets[i] % 16
            ));
        }
    }
    reach
        .ints
        .iter()
        .find(|(_, v, limit)| v > limit)
        .map(|(what, v, limit)| format!("`{what}` reaches {v}, past {limit}"))
}

/// A runner of [`CASES`] draws from [`seed`], announced for `what`.
pub fn runner(what: &str) -> TestRunner {
    let seed = seed();
    println!("{what}: {CASES} launches from seed {seed} (COURSE_PROPTEST_SEED=N draws others)");
    let config = Config {
        cases: CASES,
        failure_persistence: None,
        max_shrink_iters: 10_000,
        ..Config::default()
    };
    let mut bytes = [0u8; 32];
    for (i, b) in bytes.iter_mut().enumerate() {
        *b = (seed >> (8 * (i % 8))) as u8 ^ (i as u8);
    }
    TestRunner::new_with_rng(config, TestRng::from_seed(RngAlgorithm::ChaCha, &bytes))
}

pub fn prove(model: Model) {
    let mut runner = runner(model.kernels);
    let accepted = Cell::new(0u32);
    let result = runner.run(&(model.draw)(), |l| {
        if !l.driver_accepts() {
            return Ok(());
        }
        let Ok(derived) = (model.contract)(&l) else {
            return Ok(());
        };
        accepted.set(accepted.get() + 1);
        match leaves_its_buffers(&model, &l, &derived) {
            None => Ok(()),
            Some(why) => Err(TestCaseError::fail(why)),
        }
    });
    match result {
        Ok(()) => {}
        Err(TestError::Fail(why, l)) => panic!(
            "{}: the contract accepts a launch under which {why}.\nThe smallest such launch \
             (make it a test in refused.rs once the contract refuses it):\n{l:#?}",
            model.kernels
        ),
        Err(e) => panic!("{}: {e}", model.kernels),
    }
    // A property that holds because nothing is accepted proves nothing.
    assert!(
        accepted.get() >= CASES / 20,
        "{}: only {} of {CASES} launches were accepted: draw launches closer to the contract",
        model.kernels,
        accepted.get()
    );
}

/// The text of `file` between `// ANCHOR: name` and `// ANCHOR_END: name`, marker lines out.
pub fn anchored(file: &str, name: &str) -> String {
    let path = format!("{}/../../kernels/{file}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let mut inside = false;
    let mut out = String::new();
    let mut found = false;
    for line in text.lines() {
        let marker = |m: &str| {
            line.trim()
                .strip_prefix("// ")
                .and_then(|l| l.strip_prefix(m))
                .map(str::trim)
        };
        if marker("ANCHOR:") == Some(name) {
            inside = true;
            found = true;
        } else if marker("ANCHOR_END:") == Some(name) {
            inside = false;
        } else if inside && marker("ANCHOR:").is_none() && marker("ANCHOR_END:").is_none() {
            out.push_str(line.trim_end());
            out.push('\n');
        }
    }
    assert!(found, "kernels/{file} has no anchor `{name}`");
    out
}

/// FNV-1a, 64 bits.
pub fn hash(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

pub fn mirrored_hash(model: &Model) -> u64 {
    let text: String = model.mirrors.iter().map(|(f, a)| anchored(f, a)).collect();
    hash(&text)
}

/// `i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) touch [i]`: the reach of a kernel
/// with one element per thread along x, for each of `buffers` buffers.
pub fn one_per_thread(l: &Launch, n: i64, buffers: usize) -> Reach {
    let t = l.tx();
    let n = n.max(0) as u64;
    Reach {
        extents: vec![t.min(n); buffers],
        vectors: vec![false; buffers],
        ints: vec![(
            "blockIdx.x * blockDim.x + threadIdx.x",
            i128::from(t) - 1,
            INT_MAX,
        )],
    }
}

/// A grid-stride loop `for (int i = first; i < n; i += stride)` over `threads` threads: it
/// touches `[0, n)`, and its last `i` is one stride past the last element.
pub fn grid_stride(threads: u64, n: i64) -> (u64, i128) {
    let n = n.max(0);
    let last = match n {
        0 => i128::from(threads) - 1,
        n => i128::from(n - 1) + i128::from(threads),
    };
    (n as u64, last)
}

/// As [`one_d`], but the grid along x is drawn first and `lens` sees it, for buffers sized by
/// the grid (a status word per tile): a large grid then comes with buffers large enough for the
/// contract to accept it, and what the kernel does with the grid is tested.
pub fn one_d_grid(
    block: u32,
    per_thread: u64,
    lens: fn(u64, u64) -> Vec<u64>,
    args: fn(u64) -> Vec<i64>,
) -> BoxedStrategy<Launch> {
    size()
        .prop_flat_map(move |n| {
            let blocks = n.div_ceil(u64::from(block) * per_thread);
            grid_near(blocks).prop_flat_map(move |g| {
                let g = u64::from(g);
                around([g, 1, 1], [block, 1, 1], lens(n, g), args(n))
            })
        })
        .boxed()
}

// ---- the refusals the plain tests expect ----

pub fn shape(grid: (u32, u32, u32), block: u32) -> LaunchConfig {
    LaunchConfig {
        grid_dim: grid,
        block_dim: (block, 1, 1),
        shared_mem_bytes: 0,
    }
}

pub fn at(len: usize) -> Span {
    Span::of_len(len)
}

/// The refusal's sentence, which must name `clause`.
pub fn refused<T: std::fmt::Debug>(result: Result<T, LaunchError>, clause: &str) {
    match result {
        Ok(v) => panic!("accepted ({v:?}); expected a refusal naming `{clause}`"),
        Err(e) => {
            let said = e.to_string();
            assert!(
                said.contains(clause),
                "refused, but for another reason: {said}"
            );
        }
    }
}
