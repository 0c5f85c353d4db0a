#[ld::kernel(workgroup_size = 64)]
fn k(data: &mut [u32]) {
    let tile = shared::<[u32; 64]>();
    tile[local_index()] = data[global_id().x];
    barrier();
    if tile[local_index()] > 0 {
        barrier();
    }
}

fn main() {}
