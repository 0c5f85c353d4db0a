// Invocations that return in iteration 1 miss the barrier in iteration 2.
#[ld::kernel(workgroup_size = 64)]
fn k(data: &mut [u32], n: u32) {
    let tile = shared::<[u32; 64]>();
    let lid = local_index();
    for s in 0..n {
        tile[lid] = s;
        barrier();
        if lid < s {
            return;
        }
    }
    data[global_id().x] = tile[0];
}

fn main() {}
