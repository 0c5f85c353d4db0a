// A 2-D workgroup, every id builtin, buffer lengths, windows into a buffer
// and a shared array, an `if` used as a value, a local array, and
// short-circuit operators.
#[ld::kernel(workgroup_size = (8, 8))]
fn tiles(input: &[u32], out: &mut [u32], width: u32) {
    let tile = shared::<[u32; 64]>();
    let g = global_id();
    let l = local_id();
    let flat = g.y * num_workgroups().x * 8 + g.x;
    tile[local_index()] = input[flat % input.len()];
    barrier();
    let row = &tile[l.y * 8..];
    let mut acc = [0u32; 2];
    for j in 0..8u32 {
        acc[j % 2] += row[j];
    }
    let w = &mut out[workgroup_id().x * 64..];
    let m = if acc[0] > acc[1] { acc[0] } else { acc[1] };
    if l.x < w.len() && (width == 0 || g.x < width) {
        w[l.x] = m + row.len();
    }
}
