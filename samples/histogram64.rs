//! Histogram64: the CUDA SDK's 64-bin histogram of a byte stream (bin =
//! byte >> 2). Each invocation keeps its own sub-histogram of 64 8-bit
//! counters in workgroup memory; after a barrier, invocation `bin` of each
//! workgroup sums that bin over the workgroup's 192 sub-histograms into a
//! per-workgroup partial histogram, and `merge_histogram64` (one workgroup
//! per bin, strided sum then a tree reduction in workgroup memory) adds the
//! partials up.
//!
//! Paper configuration: 2067 blocks x 192 threads, 11 KB shared. The SDK
//! sizes the grid so that every thread counts at most 63 words (its 8-bit
//! counters then cannot overflow): 2067 blocks is its default 100 MB input
//! (25M words / (192 x 63)). We keep that rule and the 192-invocation
//! workgroups, with a 16 MiB default input (348 workgroups) so a native run
//! on lavapipe stays well under a second; `--size 5.96` gives the paper's
//! 2067 workgroups. WGSL has no byte-sized workgroup memory, so the SDK's `uchar s_Hist[]`
//! becomes 3072 `u32`s (12 KB) holding 4 counters each, laid out so that
//! every invocation owns whole words (word `(bin >> 2) * 192 + tid`, byte
//! `bin & 3`): a non-atomic read-modify-write of a word shared by four
//! invocations would be a race the byte stores of CUDA do not have. The
//! SDK's bank-conflict permutation `threadPos` is not needed with this
//! layout.
//!
//! No race: sub-histograms are private to their invocation (the privatized
//! shared data the paper mentions), the merge reads them only after the
//! barrier, and each workgroup writes its own partial row. Table VI:
//! histogram64, no race (1 region analysed). `--fixed` runs the same
//! program.
//!
//! `cargo run --release --example histogram64 -- [--fixed] [--cpu] [--check] [--json] [--warp-size N] [--size X]`

mod common;

#[path = "apps/histogram64.rs"]
mod histogram64;

fn main() {
    common::app::main::<histogram64::Histogram64>()
}
