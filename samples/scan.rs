//! Scan: the CUDA SDK's work-efficient parallel prefix sum (Blelloch 1990,
//! as in GPU Gems 3 ch. 39, `scanLargeArray`): exclusive prefix sums of
//! `u32`s (wrapping). Each workgroup loads 512 elements into workgroup
//! memory (padded by `i >> 5` against bank conflicts), builds partial sums
//! up a balanced tree (up-sweep), saves the block total, clears the root and
//! traverses back down (down-sweep); the block totals are scanned the same
//! way (recursively, one level per 512x), and `uniform_add` adds them back.
//!
//! Paper configuration: 256 blocks x 512 threads (1024 elements a block,
//! 4.22 KB shared). WGSL guarantees 256 invocations a workgroup, so ours
//! are 256 x 256 scanning 512 elements each (2.1 KB shared); the default
//! input keeps the paper's 256 blocks (131072 elements, `--size` scales).
//!
//! The race is injected, as the paper (and GRace before it) did: the racy
//! variant (default) drops the `barrier()` at the top of the down-sweep
//! loop (`__syncthreads()` after `offset >>= 1` in the SDK's `prescan`), so
//! the whole down-sweep is one region. At level `d` invocation `t` writes
//! `temp[ai]`, `temp[bi]`; at level `2d` invocations `2t` and `2t + 1`
//! read those words as their `temp[bi]`: once they sit in another warp
//! (`d >= 32`), a warp reads workgroup memory another warp writes in the
//! same region (Table VI: scan, yes*, rw, shared). Because the readers
//! also add into that word, ld reports it as a write-write race wherever
//! both warps change its value (value-based: a warp that changed the word
//! it read is one of its writers, so its read is not judged apart),
//! and as the paper's read-write race wherever the reader's add leaves it
//! unchanged (zero-padded tails: the last partial block, the upper half of
//! the block-sum scan). ld's verdict is thus rw,ww on workgroup memory,
//! the paper's rw plus ww.
//! On lavapipe and on the CPU executor, which run a workgroup's warps (or
//! invocations) in order up to each barrier, readers always come after
//! their writers here, so the racy output still verifies; on a GPU that
//! runs warps concurrently it need not. `--fixed` keeps the barrier.
//!
//! `cargo run --release --example scan -- [--fixed] [--cpu] [--check] [--json] [--warp-size N] [--size X]`

mod common;

#[path = "apps/scan.rs"]
mod scan;

fn main() {
    common::app::main::<scan::Scan>()
}
