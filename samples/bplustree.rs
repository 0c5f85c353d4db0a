//! B+tree: Rodinia's b+tree `findK` (one key lookup per workgroup).
//!
//! The host bulk-loads a B+ tree of order 256 (nodes ~80% full) over 1M
//! records with distinct keys and lays it out as Rodinia's `knode` arrays
//! (keys and indices, 257 slots per node; unused slots hold `i32::MAX`).
//! `findK` runs one workgroup per query key: at each of the tree's internal
//! levels every invocation `thid` tests `keys[thid] <= k < keys[thid + 1]`
//! of the current node; the one that matches writes the child to
//! `offsetD[bid]`, invocation 0 then sets `currKnodeD[bid] = offsetD[bid]`;
//! at the leaf the invocation holding the key writes the record's value to
//! `ansD[bid]`. Output verified exactly against a host B+ tree lookup.
//!
//! Configuration: the paper ran 8 blocks x 1024 threads (Rodinia's order
//! 508 + 1); we use order 256 with 256 invocations (the WebGPU workgroup
//! limit) and 10,000 queries (Rodinia's command file size), one workgroup
//! each. Rodinia's `knode` struct cannot be a kernel struct (its
//! `[i32; 257]` fields break the derived `Default`, see the report), so the
//! kernel takes the keys and indices as two flat arrays (stride 257).
//!
//! The race. The paper reports "yes, ww, global" (2 regions, 1 with races,
//! 6 warps, 14 words) without saying where. Rodinia orders the matching
//! invocation's write of `offsetD[bid]`, invocation 0's write of
//! `currKnodeD[bid]` and everybody's reads of both with `__syncthreads()`,
//! which in CUDA also orders global memory. The racy variant (default)
//! ports it literally as `barrier()`, WGSL's workgroupBarrier, which orders
//! workgroup memory only: `offsetD[bid]` and `currKnodeD[bid]` are then
//! written by one warp and read by others with nothing ordering them
//! (storage, inter-warp). LD reports this as READ-write races on storage:
//! on `offset` (the next level's read of `offsetD[bid]` by another warp)
//! and on `ans` (the leaf warp's answer changes once it sees
//! `currKnodeD[bid]`); the paper's row says write-write. With distinct keys
//! exactly one invocation matches per level, so two writes of one word in
//! one region never happen here; a ww race needs several matching
//! invocations, whose differing writes would also make the native output
//! wrong. So the scope (global) matches the paper, the kind differs.
//! `--fixed` uses `storage_barrier()`: no race.
//!
//! `cargo run --release --example bplustree -- [--fixed] [--cpu] [--check] [--json] [--warp-size N] [--size X]`

mod common;

#[path = "apps/bplustree.rs"]
mod bplustree;

fn main() {
    common::app::main::<bplustree::BPlusTree>()
}
