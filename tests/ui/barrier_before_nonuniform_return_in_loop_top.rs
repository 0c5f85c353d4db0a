#[ld::kernel(workgroup_size = 64)]
fn k(data: &mut [u32]) {
    let tile = shared::<[u32; 64]>();
    let lid = local_index();
    loop {
        tile[lid] += 1;
        barrier();
        if tile[lid] > lid {
            return;
        }
    }
}

fn main() {}
