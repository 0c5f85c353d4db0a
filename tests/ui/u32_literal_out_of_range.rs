#[ld::kernel(workgroup_size = 64)]
fn k(data: &mut [u32]) {
    data[global_id().x] = 5_000_000_000u32;
}

fn main() {}
