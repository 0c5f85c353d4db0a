#[ld::kernel(workgroup_size = 64)]
fn k(data: &mut [u32], n: u32) {
    let tile = shared::<[u32; 64]>();
    let lid = local_index();
    for step in 0..n {
        if data[global_id().x] == step {
            break;
        }
        tile[lid] = step;
        barrier();
    }
}

fn main() {}
