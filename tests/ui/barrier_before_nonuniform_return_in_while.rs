#[ld::kernel(workgroup_size = 64)]
fn k(data: &mut [u32], n: u32) {
    let tile = shared::<[u32; 64]>();
    let lid = local_index();
    let mut s = 0u32;
    while s < n {
        s += 1;
        tile[lid] = s;
        barrier();
        if lid < s {
            return;
        }
    }
    data[global_id().x] = tile[0];
}

fn main() {}
