#[ld::kernel(workgroup_size = 64)]
fn k(data: &mut [u32]) {
    let tile = shared::<[u32; 64]>();
    let mut j = 0u32;
    while j < local_index() {
        tile[j] = j;
        barrier();
        j += 1;
    }
    data[global_id().x] = tile[0];
}

fn main() {}
