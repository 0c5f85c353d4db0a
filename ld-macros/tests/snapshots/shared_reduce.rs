// A workgroup reduction: a shared array, barriers in a uniform `while`
// loop, compound assignment and shifts.
#[ld::kernel(workgroup_size = 64)]
fn block_sum(input: &[u32], out: &mut [u32]) {
    let tile = shared::<[u32; 64]>();
    let flags = shared::<[i32; 8]>();
    let lid = local_index();
    tile[lid] = input[global_id().x];
    if lid < 8 {
        flags[lid] = -1;
    }
    barrier();
    let mut s = 32u32;
    while s > 0 {
        if lid < s {
            tile[lid] += tile[lid + s];
        }
        barrier();
        s >>= 1;
    }
    if lid == 0 {
        out[workgroup_id().x] = tile[0] + flags[7] as u32;
    }
}
