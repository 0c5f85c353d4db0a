//! The co-clustering statistics kernel (see `samples/cocluster.rs`): each
//! workgroup's row-cluster x column-cluster sums of a data matrix, from
//! per-warp partial matrices in workgroup memory.

#[ld::kernels]
pub mod cocluster {
    /// Invocations per workgroup (the paper's 256-thread blocks).
    const THREADS: u32 = 256;
    /// Invocations per warp, and warps per workgroup.
    const LANES: u32 = 32;
    const WARPS: u32 = 8;
    /// Row clusters and column clusters (one column cluster per lane).
    const KR: u32 = 4;
    const KC: u32 = 32;
    /// Cells of the statistics matrix.
    const CELLS: u32 = 128;
    /// Rows per warp (a workgroup takes WARPS * ROWS_PER_WARP rows).
    const ROWS_PER_WARP: u32 = 32;

    /// Workgroup `g` takes rows `g * 256 ..`, warp `w` 32 of them; lane `b`
    /// of a warp sums, row by row, the row's entries in column cluster `b`
    /// (the columns `col_order[col_start[b] .. col_start[b + 1]]`) into
    /// cell `(row_label, b)` of its warp's partial matrix
    /// `part[w * 128 ..]`, so no two invocations update one cell. The
    /// workgroup's `KR x KC` sums go to `sums[g * 128 ..]`.
    ///
    /// `chained = 1` (the racy original): warp `w > 0` then adds its
    /// predecessor's running total, cell by cell, `part[w] += part[w - 1]`,
    /// with no barrier, as if warps ran one after another; after the barrier
    /// `part[7]` is taken as the total. `chained = 0` (fixed): the barrier
    /// comes first and invocation `c < 128` sums cell `c` of the 8 partials.
    #[kernel(workgroup_size = 256)]
    pub fn cocluster_stats(data: &[f32], row_label: &[u32], col_order: &[u32], col_start: &[u32], sums: &mut [f32], n_cols: u32, chained: u32) {
        let part = shared::<[f32; 1024]>();
        let lid = local_index();
        let warp = lid / LANES;
        let lane = lid % LANES;
        let g = workgroup_id().x;
        let mine = &mut part[warp * CELLS..];
        let first_row = g * THREADS + warp * ROWS_PER_WARP;
        for r in 0..ROWS_PER_WARP {
            let row = first_row + r;
            let a = row_label[row];
            let mut s = 0.0f32;
            for p in col_start[lane]..col_start[lane + 1] {
                s += data[row * n_cols + col_order[p]];
            }
            mine[a * KC + lane] += s;
        }
        if chained != 0 && warp > 0 {
            for a in 0..KR {
                part[warp * CELLS + a * KC + lane] += part[(warp - 1) * CELLS + a * KC + lane];
            }
        }
        barrier();
        if lid < CELLS {
            let mut total = 0.0f32;
            if chained != 0 {
                total = part[(WARPS - 1) * CELLS + lid];
            } else {
                for w in 0..WARPS {
                    total += part[w * CELLS + lid];
                }
            }
            sums[g * CELLS + lid] = total;
        }
    }
}

/// `chained` of the two variants.
pub const RACY: u32 = 1;
pub const FIXED: u32 = 0;
/// Invocations per workgroup, row clusters, column clusters.
pub const THREADS: usize = 256;
pub const KR: usize = 4;
pub const KC: usize = 32;

pub use cocluster::cocluster_stats;
