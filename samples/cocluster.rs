//! Cocluster: the statistics step of a co-clustering iteration (the
//! paper's cocluster, after Ma and Agrawal's GPU co-clustering, whose source
//! is not public: this is written from the paper's description). Given row
//! labels (4 row clusters) and column labels (32 column clusters, kept as
//! member lists), each workgroup sums the entries of its 256 rows of the
//! data matrix per row-cluster x column-cluster cell (a 4 x 32 matrix); the
//! host combines the workgroups' sums with the cluster sizes into the
//! co-cluster means. Warp `w` takes 32 of the workgroup's rows, lane `b` of
//! it column cluster `b`, and each warp accumulates into its own partial
//! matrix in workgroup memory (`part`, 8 x 128 words), so no two
//! invocations ever update one cell.
//!
//! Paper configuration: 8 blocks x 256 threads, 15.57 KB shared, 32 MB
//! global. Ours: 8 workgroups x 256 invocations and a 2048 x 4096 f32
//! matrix (32 MB; `--size` scales the columns), but 4 KB of workgroup
//! memory: only the per-warp partial matrices live there (the original's
//! other shared data is unknown).
//!
//! The race (default, the original's kind of bug): the warps' partials are
//! merged as a chain of running totals, `part[w] += part[w - 1]` cell by
//! cell for warps 1..7, with no barrier between the accumulation and the
//! chain, as if warps ran one after another; `part[7]` is then taken as the
//! workgroup's total. Warp `w` reads its predecessor's cells while warp
//! `w - 1` writes them in the same region: inter-warp read-write races on
//! workgroup memory in one region, all 8 warps involved (warps 1..7 read,
//! 0..6 write), 7 x 128 = 896 words (Table VI: cocluster, yes, rw, shared,
//! 8 warps, 1 region, 896 words). ld reports exactly that: 7 rw races on
//! `part`, one per reading warp (7 units a workgroup), 896 words, in 1 of
//! the 3 regions. Lavapipe and the CPU executor run a workgroup's warps in
//! order up to a barrier, so each warp finds its predecessor's running
//! total complete and the racy output verifies there (bit-identical to the
//! fixed one); on a GPU that runs warps concurrently it need not. `--fixed`
//! puts the barrier first and lets invocation `c` sum cell `c` of the 8
//! partials.
//!
//! `cargo run --release --example cocluster -- [--fixed] [--cpu] [--check] [--json] [--warp-size N] [--size X]`

mod common;

#[path = "apps/cocluster.rs"]
mod cocluster;

fn main() {
    common::app::main::<cocluster::Cocluster>()
}
