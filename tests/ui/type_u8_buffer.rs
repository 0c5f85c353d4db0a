#[ld::kernel(workgroup_size = 64)]
fn k(data: &mut [u8]) {
    data[global_id().x] = 1;
}

fn main() {}
