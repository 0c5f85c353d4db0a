//! Backprop: one training step of Rodinia's back-propagation network
//! (`in` inputs, 16 hidden units, 1 output; Rodinia 2.4 `backprop`).
//!
//! `layerforward` (workgroup 16x16, one per 16 input units, grid (1, in/16)
//! as in Rodinia): the workgroup loads its 16 input units and their 16x16
//! tile of input->hidden weights into shared memory, multiplies, tree-reduces
//! every column over the 16 rows with a barrier per level, and writes the 16
//! column sums to `hidden_partial_sum[by * hid + ty]`. The host sums the
//! partials, finishes the forward pass and the errors, uploads the hidden
//! deltas and the weights again; `adjust_weights` updates every weight and
//! its momentum (`w += ETA*delta*ly + MOMENTUM*oldw; oldw = ...`), then
//! invocations `ty == 0` of workgroup 0 update the bias row.
//!
//! Configuration: the paper ran 8 blocks x 256 threads; Rodinia launches
//! in/16 blocks of 16x16, which we keep, with in = 8192 (512 workgroups;
//! the paper's 2.19 MB of global memory suggests in = 16384, but check mode
//! keeps one copy of the weights per warp and workgroup, which at
//! `--size 0.1` of 16384 exceeds the device's 128 MiB buffer limit).
//! Rodinia's `__syncthreads()` is `barrier()` around shared memory and
//! `storage_barrier()` between adjust_weights' two updates of global memory.
//!
//! The race. The paper reports "yes, ww, global" (4 regions analysed, 2 with
//! races, 5 warps, 2,446 words) without saying where. Rodinia's own indices
//! are disjoint per invocation when it is launched as Rodinia launches it
//! (hid = WIDTH = 16): we found no conflicting pair in its source. The one
//! place the two kernels write global memory no output depends on is
//! layerforward's write-back of the reduced tile over its weights
//! (`input_hidden_cuda[index] = weight_matrix[ty][tx]`, dead because the
//! host re-uploads the weights). The racy variant (default) drops the block
//! term `(hid + 1) * HEIGHT * by` from that store's index, so every
//! workgroup writes its (different) reduced tile over the first tile's 256
//! weights: a write-write race between workgroups in global memory, the
//! paper's kind and scope, and, being dead, invisible in the verified
//! output. This is our reconstruction, not a line of Rodinia. `--fixed`
//! stores at Rodinia's `index` (race-free).
//!
//! `cargo run --release --example backprop -- [--fixed] [--cpu] [--check] [--json] [--warp-size N] [--size X]`

mod common;

#[path = "apps/backprop.rs"]
mod backprop;

fn main() {
    common::app::main::<backprop::Backprop>()
}
