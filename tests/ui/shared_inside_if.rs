#[ld::kernel(workgroup_size = 64)]
fn k(data: &mut [u32], n: u32) {
    if n > 4 {
        let tile = shared::<[u32; 64]>();
        tile[local_index()] = 1;
    }
    data[global_id().x] = 0;
}

fn main() {}
