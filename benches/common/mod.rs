//! What two benches share: `native.rs` dispatches these kernels, `wgsl.rs`
//! sets them beside the same kernels loaded from WGSL, each on every
//! runtime there is.

use ld::Runtime;

#[ld::kernel(workgroup_size = 256)]
pub fn saxpy(x: &[f32], y: &mut [f32], a: f32) {
    let i = global_id().x;
    if i < y.len() {
        y[i] = a * x[i] + y[i];
    }
}

#[ld::kernel(workgroup_size = 256)]
pub fn block_sum(input: &[u32], out: &mut [u32]) {
    let tile = shared::<[u32; 256]>();
    let lid = local_index();
    tile[lid] = input[global_id().x];
    barrier();
    let mut s = 128u32;
    while s > 0 {
        if lid < s {
            tile[lid] += tile[lid + s];
        }
        barrier();
        s >>= 1;
    }
    if lid == 0 {
        out[workgroup_id().x] = tile[0];
    }
}

/// The GPU adapter (lavapipe on CI machines) when there is one, then the
/// CPU reference.
pub fn runtimes() -> Vec<(&'static str, Runtime)> {
    let mut v = vec![("cpu", Runtime::cpu())];
    if let Ok(g) = Runtime::gpu() {
        v.insert(0, ("gpu", g));
    }
    v
}
