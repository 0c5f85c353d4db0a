#[ld::kernel(workgroup_size = 64)]
fn k(data: &mut [u32]) {
    let tile = shared::<[u32; 64]>();
    let lid = local_index();
    loop {
        barrier();
        if tile[lid] == lid {
            break;
        }
        tile[lid] += 1;
    }
    data[global_id().x] = tile[lid];
}

fn main() {}
