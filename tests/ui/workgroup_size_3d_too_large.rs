#[ld::kernel(workgroup_size = (16, 16, 8))]
fn k(data: &mut [u32]) {
    data[global_id().x] = 0;
}

fn main() {}
