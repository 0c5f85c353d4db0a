//! Kmeans: one iteration of k-means clustering as the GPU kmeans of the
//! paper's benchmarks (Ma and Agrawal's, as checked by GRace and LDetector;
//! Rodinia's `kmeansPoint` does the same assignment). Every invocation takes
//! one point (8 features), finds its nearest of the 4 centroids (staged in
//! workgroup memory) and writes its assignment; then, cluster by cluster,
//! the workgroup sums the coordinates and the count of its points in that
//! cluster with a tree reduction in workgroup memory (9 rows of 128 values)
//! and its last invocation writes the workgroup's partial sums. The host
//! combines the partials into the new centroids.
//!
//! Paper configuration: 139 blocks x 128 threads, 4.63 KB shared, 0.70 MB
//! global. Ours is the same: 139 workgroups x 128 invocations by default
//! (17,792 points x 8 features: 0.57 MB of points; `--size` scales the
//! points), 4.63 KB of workgroup memory (32 centroid words + 1,152
//! reduction words).
//!
//! The race is injected, as the paper (after GRace) did by removing a
//! barrier from the shared-memory reduction: the racy variant (default)
//! drops the `barrier()` after the first level of the tree (`s = 64`), so the
//! first two levels are one region. At level 32 invocations 96..127 (warp 3)
//! read `red[lid - 32]`, the words 64..95 that warp 2 writes at level 64 in
//! that same region: an inter-warp read-write race on workgroup memory
//! between two warps on 32 words of each of the 9 rows (Table VI: kmeans,
//! yes*, rw, shared, 2 warps, 32 words). ld reports that: one rw race on
//! `red`, charged to warp 3 (the reader) of every workgroup, 288 = 9 x 32
//! words, in the one region (of 7) where the barrier is missing.
//! The tree folds toward the last invocation (`red[lid] += red[lid - s]` for
//! the upper `s` invocations) rather than toward invocation 0: the CPU
//! executor runs a workgroup's invocations in index order up to each
//! barrier, so the reading warp 3 runs after the writing warp 2 and the
//! racy output still verifies there, as it does on lavapipe. (Folded toward
//! invocation 0, the reader is warp 0, which runs before its writer warp 1:
//! we tried it, and the CPU executor's racy sums then miss a quarter of the
//! points, while lavapipe's happened to verify.) On a GPU that runs warps
//! concurrently the racy output need not be right.
//! `--fixed` keeps the barrier.
//!
//! `cargo run --release --example kmeans -- [--fixed] [--cpu] [--check] [--json] [--warp-size N] [--size X]`

mod common;

#[path = "apps/kmeans.rs"]
mod kmeans;

fn main() {
    common::app::main::<kmeans::Kmeans>()
}
