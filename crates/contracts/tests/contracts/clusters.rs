//! Clustered launches: the launcher of a test's kernel, `clusters.cu`, whose contract says
//! `clusters` and sizes shared memory by the cluster, takes drawn clusters and grids (clusters
//! of 0 to 32 blocks, grids that are or are not whole clusters). Its pure contract must accept a
//! launch exactly when every clause holds, the stated ones and the implicit ones: so no accepted
//! launch has a cluster axis of 0, a grid axis that is not a whole number of clusters, a cluster
//! of more than 16 blocks, or a stated clause broken.

use course::launch::ClusterConfig;
use proptest::prelude::*;
use proptest::test_runner::{TestCaseError, TestError};

use super::model::{CASES, Launch, around, ceil, runner, size};

mod launcher {
    course::kernels!("tests/contracts/clusters.cu");
}

#[derive(Clone, Debug)]
struct Clustered {
    /// `lens`: `values`, `counts`.
    launch: Launch,
    cluster: [u32; 3],
}

impl Clustered {
    fn config(&self) -> ClusterConfig {
        let [x, y, z] = self.cluster;
        ClusterConfig {
            launch: self.launch.config(),
            cluster_dim: (x, y, z),
        }
    }
}

/// A cluster axis: `usual` mostly, else a size the driver takes, or one the contract refuses.
pub fn cluster_axis(usual: u32) -> BoxedStrategy<u32> {
    prop_oneof![
        12 => Just(usual),
        3 => prop::sample::select(vec![1u32, 2, 4, 8, 16]),
        1 => prop::sample::select(vec![0u32, 3, 5, 17, 32]),
    ]
    .boxed()
}

/// Launches over `n` values into `bins` bins, in blocks of 256 and clusters of about 2: the
/// grid mostly rounded up to whole clusters, the shared memory mostly what the bins need.
fn draw() -> BoxedStrategy<Clustered> {
    let bins = prop_oneof![4 => 1u64..=4096, 1 => Just(0u64), 1 => size()];
    let cluster = (cluster_axis(2), cluster_axis(1), cluster_axis(1));
    (size(), bins, cluster)
        .prop_flat_map(|(n, bins, (cx, cy, cz))| {
            let per_cluster = u64::from(cx * cy * cz).max(1);
            let needed = (4 * ceil(bins, per_cluster)).min(u64::from(u32::MAX)) as u32;
            let shared = prop_oneof![
                6 => Just(needed),
                1 => Just(needed.saturating_sub(1)),
                1 => 0u32..=100_000,
            ];
            let whole = prop::bool::weighted(0.8);
            (
                around([ceil(n, 256), 1, 1], [256, 1, 1], vec![n, bins], vec![]),
                shared,
                whole,
            )
                .prop_map(move |(mut launch, shared, whole)| {
                    launch.shared = shared;
                    let g = u64::from(launch.grid[0]);
                    if whole && cx > 0 {
                        let rounded = ceil(g, u64::from(cx)) * u64::from(cx);
                        launch.grid[0] = rounded.min(u64::from(u32::MAX)) as u32;
                    }
                    Clustered {
                        launch,
                        cluster: [cx, cy, cz],
                    }
                })
        })
        .boxed()
}

/// Every clause of the contract, stated or implicit, and whether it holds for `c`.
fn clauses(c: &Clustered) -> Vec<(&'static str, bool)> {
    let l = &c.launch;
    let [gx, gy, gz] = l.grid.map(u128::from);
    let [bx, by, bz] = l.block.map(u128::from);
    let [cx, cy, cz] = c.cluster.map(u128::from);
    let cluster = cx * cy * cz;
    let threads = gx * gy * gz * bx * by * bz;
    let [n, bins] = [l.lens[0], l.lens[1]].map(u128::from);
    let whole = |g: u128, c: u128| c >= 1 && g.is_multiple_of(c);
    let int = u128::from(i32::MAX as u32);
    vec![
        ("cluster.x >= 1", cx >= 1),
        ("cluster.y = 1", cy == 1),
        ("cluster.z = 1", cz == 1),
        ("grid.x % cluster.x = 0", whole(gx, cx)),
        ("grid.y % cluster.y = 0", whole(gy, cy)),
        ("grid.z % cluster.z = 0", whole(gz, cz)),
        ("cluster <= 16", cluster <= 16),
        ("threads >= n", threads >= n),
        ("bins >= 1", bins >= 1),
        (
            "shared >= 4 * ((bins + cluster - 1) / cluster)",
            cluster >= 1 && u128::from(l.shared) >= 4 * bins.div_ceil(cluster),
        ),
        ("grid.y = 1", gy == 1),
        ("block.y = 1", by == 1),
        ("grid.z = 1", gz == 1),
        ("block.z = 1", bz == 1),
        ("n and bins fit an int", n <= int && bins <= int),
        ("threads + len(values) <= 2^31", threads + n <= 1 << 31),
        ("threads + len(counts) <= 2^31", threads + bins <= 1 << 31),
    ]
}

#[test]
fn clustered_launches_are_accepted_exactly_when_every_clause_holds() {
    let mut runner = runner("cluster_bins");
    let accepted = std::cell::Cell::new(0u32);
    let result = runner.run(&draw(), |c| {
        let l = &c.launch;
        let decided =
            launcher::ClusterBins::contract("cluster_bins", &c.config(), l.span(0), l.span(1));
        let broken: Vec<&str> = clauses(&c)
            .into_iter()
            .filter(|&(_, holds)| !holds)
            .map(|(clause, _)| clause)
            .collect();
        match decided {
            Ok(derived) => {
                accepted.set(accepted.get() + 1);
                prop_assert!(broken.is_empty(), "accepted, but breaks {broken:?}");
                let lens = (l.lens[0] as i32, l.lens[1] as i32);
                prop_assert_eq!(derived, lens, "n and bins are not the lengths");
            }
            Err(e) if broken.is_empty() => {
                return Err(TestCaseError::fail(format!(
                    "refused ({e}), but every clause holds"
                )));
            }
            Err(_) => {}
        }
        Ok(())
    });
    match result {
        Ok(()) => {}
        Err(TestError::Fail(why, c)) => {
            panic!("cluster_bins: {why}; the smallest such launch:\n{c:#?}")
        }
        Err(e) => panic!("cluster_bins: {e}"),
    }
    assert!(
        accepted.get() >= CASES / 20,
        "only {} of {CASES} launches were accepted: draw launches closer to the contract",
        accepted.get()
    );
}

/// The refusals name the implicit clause a launch breaks.
#[test]
fn clusters_that_do_not_tile_the_grid_are_refused() {
    let refused = |grid: u32, cluster: (u32, u32, u32), why: &str| {
        let config = ClusterConfig {
            launch: super::model::shape((grid, 1, 1), 256),
            cluster_dim: cluster,
        };
        let shared = ClusterConfig {
            launch: cudarc::driver::LaunchConfig {
                shared_mem_bytes: 4 * 64,
                ..config.launch
            },
            ..config
        };
        let at = super::model::at;
        super::model::refused(
            launcher::ClusterBins::contract("cluster_bins", &shared, at(1000), at(64)),
            why,
        );
    };
    refused(6, (4, 1, 1), "grid.x % cluster.x = 0 (whole clusters)");
    refused(4, (0, 1, 1), "cluster.x >= 1 (clusters)");
    refused(4, (2, 2, 1), "cluster.y = 1");
    refused(32, (32, 1, 1), "cluster <= 16 (the largest cluster)");
}
