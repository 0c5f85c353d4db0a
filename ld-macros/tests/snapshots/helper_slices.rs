// Helpers taking slices, called on a storage buffer, a shared array and a
// window: each binding gets its own specialised WGSL function. A helper
// calling another helper with its slice passes the binding on.
#[ld::kernel(workgroup_size = 64)]
fn stencil(a: &[f32], out: &mut [f32], n: u32) {
    fn sum3(v: &[f32]) -> f32 {
        v[0] + v[1] + v[2]
    }
    fn avg3(v: &[f32]) -> f32 {
        sum3(v) / 3.0
    }
    fn fill(v: &mut [f32], x: f32) {
        for j in 0..v.len() {
            v[j] = x;
        }
    }
    let tile = shared::<[f32; 66]>();
    let lid = local_index();
    let i = global_id().x;
    tile[lid + 1] = a[i];
    barrier();
    if i + 2 < n {
        out[i] = avg3(&a[i..]) + avg3(&tile[lid..]);
        let rest = &mut out[n..];
        if lid == 0 {
            fill(rest, sum3(&tile[lid..]));
        }
    }
}
