//! The kmeans kernel (see `samples/kmeans.rs`): one iteration's assignment
//! of points to their nearest centroid, and each workgroup's partial
//! centroid sums and counts, reduced in workgroup memory.

#[ld::kernels]
pub mod kmeans {
    /// Invocations per workgroup (the paper's 128-thread blocks).
    const THREADS: u32 = 128;
    /// Features per point.
    const DIM: u32 = 8;
    /// Clusters.
    const K: u32 = 4;

    /// Squared Euclidean distance of the point `p` to centroid `c`
    /// (`c` a window on the shared centroids).
    fn dist2(p: [f32; 8], c: &[f32]) -> f32 {
        let mut acc = 0.0f32;
        for d in 0..DIM {
            let diff = p[d] - c[d];
            acc += diff * diff;
        }
        acc
    }

    /// One point per invocation: `assign[i]` = the nearest of the `K`
    /// centroids (lowest index on ties); then, cluster by cluster, the
    /// workgroup sums the coordinates and the count of its points in that
    /// cluster up a tree in workgroup memory. The tree folds toward the last
    /// invocation (`red[lid] += red[lid - s]` for the upper `s`), which
    /// writes `partial[(block * K + c) * (DIM + 1) ..]` (DIM sums, then the
    /// count). `sync = 0` drops the barrier after the first level of the
    /// tree (the injected race); `1` keeps it.
    #[kernel(workgroup_size = 128)]
    pub fn kmeans_step(points: &[f32], centroids: &[f32], assign: &mut [u32], partial: &mut [f32], n: u32, sync: u32) {
        // The centroids, then DIM + 1 rows of THREADS partial values.
        let cent = shared::<[f32; 32]>();
        let red = shared::<[f32; 1152]>();
        let lid = local_index();
        let i = global_id().x;
        let block = workgroup_id().x;
        if lid < K * DIM {
            cent[lid] = centroids[lid];
        }
        barrier();

        let mut p = [0.0f32; 8];
        let mut best = K;
        if i < n {
            for d in 0..DIM {
                p[d] = points[i * DIM + d];
            }
            let mut best_d = f32::MAX;
            for c in 0..K {
                let dd = dist2(p, &cent[c * DIM..]);
                if dd < best_d {
                    best_d = dd;
                    best = c;
                }
            }
            assign[i] = best;
        }

        for c in 0..K {
            // This invocation's contribution to cluster c.
            // (A select, not `p[d] * 0.0`: that would be -0.0 for negative
            // coordinates, a sign GPUs may drop, making the race records of
            // the two backends differ.)
            let mine = best == c;
            for d in 0..DIM {
                red[d * THREADS + lid] = if mine { p[d] } else { 0.0 };
            }
            red[DIM * THREADS + lid] = if mine { 1.0 } else { 0.0 };
            barrier();
            let mut s = THREADS / 2;
            while s > 0 {
                if lid >= THREADS - s {
                    for d in 0..DIM + 1 {
                        red[d * THREADS + lid] += red[d * THREADS + lid - s];
                    }
                }
                if sync != 0 || s != THREADS / 2 {
                    barrier();
                }
                s >>= 1;
            }
            if lid == THREADS - 1 {
                for d in 0..DIM + 1 {
                    partial[(block * K + c) * (DIM + 1) + d] = red[d * THREADS + lid];
                }
            }
        }
    }
}

/// `sync` of the two variants: the racy one drops the barrier after the
/// first level of the reduction tree.
pub const RACY: u32 = 0;
pub const FIXED: u32 = 1;
/// Invocations per workgroup, features per point, clusters.
pub const THREADS: usize = 128;
pub const DIM: usize = 8;
pub const K: usize = 4;

pub use kmeans::kmeans_step;
