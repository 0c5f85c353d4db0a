#[ld::kernel(workgroup_size = 64)]
fn k(data: &mut [u32]) {
    let pair = (1u32, 2u32);
    data[global_id().x] = pair.0 + pair.1;
}

fn main() {}
