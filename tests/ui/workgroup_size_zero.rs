#[ld::kernel(workgroup_size = 0)]
fn k(data: &mut [u32]) {
    data[global_id().x] = 0;
}

fn main() {}
