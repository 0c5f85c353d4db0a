#[ld::kernel(workgroup_size = 64)]
fn k(data: &mut [u64]) {
    data[global_id().x] = 0;
}

fn main() {}
