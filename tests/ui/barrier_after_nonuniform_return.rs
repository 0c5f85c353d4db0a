#[ld::kernel(workgroup_size = 64)]
fn k(data: &mut [u32], n: u32) {
    let tile = shared::<[u32; 64]>();
    let i = global_id().x;
    if i >= n {
        return;
    }
    tile[local_index()] = data[i];
    barrier();
    data[i] = tile[0];
}

fn main() {}
