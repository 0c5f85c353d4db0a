//! radix_sort: the CUDA SDK 2.0 radix sort (Satish, Harris and Garland) of
//! u32 keys, 4 bits per pass, 8 passes.
//!
//! Every pass: `radix_sort_blocks` sorts each block of 1024 keys by the
//! pass's 4 bits with four stable one-bit splits (counts of clear bits
//! scanned over the workgroup in shared memory, keys permuted through
//! shared memory, barriers between the steps); `find_radix_offsets` finds
//! where each of the 16 digits' runs starts in every sorted block and how
//! long it is (digit-major counters); `scan_counters` is the exclusive
//! scan of the counters (CUDPP's scan in the SDK), giving every run's
//! global position; `reorder_data` scatters the keys there. Verified:
//! the sorted keys equal the host's sort exactly.
//!
//! Configuration: the paper checked 1 workgroup of 32 invocations (256
//! keys, 0.26 KB of shared memory); we sort 262144 keys (scaled by
//! `--size`, a multiple of 1024) with 64-invocation workgroups holding 16
//! keys each (the SDK: 256 invocations x 4 keys). Differences from the SDK:
//! its `scan4`/`scanwarp` are warp-synchronous (no barrier between the
//! steps inside a warp), which WGSL does not guarantee, so the split's scan
//! is restructured: every invocation reads all 64 counts after one barrier
//! (its prefix and the total), two barriers per bit; that also keeps check
//! mode's cost per region low (9 regions per block sort) and the warps'
//! copies of the shared arrays in workgroup memory. The counter scan runs
//! in one workgroup (chunk sums, one barrier, prefixes).
//!
//! No race (Table VI: radix sort, no): each block's invocations exchange
//! keys and counts only across barriers; every storage word is written by
//! one invocation (a block's run starts and ends are found at unique digit
//! boundaries; the scatter destinations are a permutation). Check mode
//! reports no race on any of the 32 launches on both backends; `--fixed`
//! is accepted and changes nothing.
//!
//! `cargo run --release --example radix_sort -- [--cpu] [--check] [--json] [--warp-size N] [--size X]`

mod common;

#[path = "apps/radix_sort.rs"]
mod radix_sort;

fn main() {
    common::app::main::<radix_sort::RadixSort>()
}
