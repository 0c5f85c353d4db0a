#[ld::kernel(workgroup_size = 64)]
fn k(data: &mut [u32], n: u32) {
    if global_id().x < n {
        barrier();
        data[global_id().x] = 1;
    }
}

fn main() {}
