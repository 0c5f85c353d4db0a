//! nbody: the CUDA SDK 2.0 n-body simulation (GPU Gems 3, ch. 31), as the
//! paper ran it.
//!
//! Every body attracts every other (softened gravity, unit masses); one
//! step integrates velocities and positions (`v = (v + a dt) damping`,
//! `x += v dt`) into a second pair of buffers (the SDK's double-buffered
//! `m_dPos[2]`/`m_dVel[2]`). The kernel is `integrateBodies` with
//! `multithreadBodies`: a workgroup of 64 x 4 invocations integrates 64
//! bodies, 4 invocations per body (rows `local_id().y`); bodies are tiled
//! through a shared `float4` array (4 KB) between barriers, each row
//! summing the forces of a quarter of the bodies; after a last barrier one
//! row adds up the rows' partial accelerations (`SX_SUM`). The host runs 2
//! steps; the output is checked against an f64 host simulation (largest
//! deviation relative to the largest magnitude, bound 1e-4).
//!
//! Configuration: the paper's 60 workgroups of 256 invocations (p = 64,
//! q = 4: 3840 bodies), scaled by `--size` in multiples of 4 workgroups (the
//! SDK's tiling needs a multiple of q). Differences from the SDK: WGSL has
//! no `rsqrtf` (`1 / sqrt` instead) and no `float4` math (components
//! written out).
//!
//! The race (Table VI: nbody, ww, global): SDK 2.0's `integrateBodies`
//! stores `newPos[index]` and `newVel[index]` unconditionally, from every
//! row, although only the summing row holds the whole acceleration; the
//! other rows store values computed from their partial sums. That is a
//! write-write race on storage between the 4 rows, i.e. between warps 0/1,
//! 2/3, 4/5 and 6/7 of every workgroup (all 8 warps; per workgroup 64
//! bodies in each of the two buffers: the 128 `float4` addresses of the
//! paper's row, 512 words here). Later SDKs fixed it with
//! `if (!multithreadBodies || threadIdx.y == 0)`, which is `--fixed`.
//!
//! Which store lands last decides the output. On the paper's GPU the
//! summing row, which does extra work, tends to store last; on lavapipe and
//! on the CPU executor the invocations of a workgroup run in index order,
//! so the highest row's store lands last. We therefore let row q - 1 (not
//! the SDK's row 0) do the summing, so that the racy program produces the
//! correct output natively on both backends, as the SDK's did on its GPUs.
//! The race is unchanged: check mode reports it on both steps' launches
//! (only write-write, only on `new_pos`/`new_vel`). `run` clears the second
//! buffer pair first so that every execution starts from the same state.
//!
//! `cargo run --release --example nbody -- [--fixed] [--cpu] [--check] [--json] [--warp-size N] [--size X]`

mod common;

#[path = "apps/nbody.rs"]
mod nbody;

fn main() {
    common::app::main::<nbody::Nbody>()
}
