//! Bisect_small: the CUDA SDK eigenvalues sample, small-matrix variant
//! (`bisectKernel`): every eigenvalue of a symmetric tridiagonal matrix of
//! order n <= 256 by bisection in one workgroup. Intervals (bounds and the
//! Sturm counts at them) live in workgroup memory, one per invocation.
//! Each level every active invocation reads its interval, the matrix is
//! staged into the interval arrays as scratch, each invocation Sturm-counts
//! the eigenvalues below its midpoint, keeps the first non-empty child in
//! its slot and, when both children hold eigenvalues, appends the second
//! after the active ones at an index from an in-place scan of the "has a
//! second child" flags (compaction). Converged intervals holding a multiple
//! eigenvalue are split by count. Barriers separate every step.
//!
//! Paper configuration: 1 block x 512 threads (10 KB shared). Ours: 1
//! workgroup x 256 (WGSL's guaranteed maximum), so matrices up to 256
//! (default 256, `--size` scales down), 5 KB shared. WGSL requires
//! barriers in uniform control flow and a value read from workgroup memory
//! is never uniform (ld has no `workgroupUniformLoad`), so two loops are
//! restructured: the SDK's `while (true) { ...; if (all_threads_converged)
//! break; }` runs a host-computed number of levels that guarantees
//! convergence (halvings down to the absolute floor of the convergence
//! test, plus one per halving of a multiple eigenvalue; levels after
//! convergence only pass their barriers), and the compaction scan runs over
//! `n` rounded up to a power of two instead of over the active intervals.
//! For that bound the SDK's absolute floor `MIN_ABS_INTERVAL = 5e-37`
//! becomes `precision * max(|lg|, |ug|)`. Unused flag entries are cleared
//! every level, and a Sturm count inconsistent with its interval's counts
//! (rounding) is clamped into them. The block-wide flags the SDK writes
//! from every thread (`all_threads_converged = 0`, `compact_second_chunk =
//! 1`, a benign same-value race) are gone with the loops that needed them.
//!
//! No race: every invocation writes only its own slot, the compaction
//! writes slots past the active ones at distinct scanned indices, and the
//! matrix overwrites the interval arrays only between barriers that order
//! it after every read of them. Table VI: bisect small, no race (2 regions
//! analysed). `--fixed` runs the same program.
//!
//! `cargo run --release --example bisect_small -- [--fixed] [--cpu] [--check] [--json] [--warp-size N] [--size X]`

mod common;

#[path = "apps/bisect_small.rs"]
mod bisect_small;

fn main() {
    common::app::main::<bisect_small::BisectSmall>()
}
