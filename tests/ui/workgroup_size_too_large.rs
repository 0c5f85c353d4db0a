#[ld::kernel(workgroup_size = 2048)]
fn k(data: &mut [u32]) {
    data[global_id().x] = 0;
}

fn main() {}
