#[ld::kernel(workgroup_size = 64)]
fn k(data: &mut [u32]) {
    data[global_id().x] = count;
}

fn main() {}
