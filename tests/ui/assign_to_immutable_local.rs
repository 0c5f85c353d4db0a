#[ld::kernel(workgroup_size = 64)]
fn k(data: &mut [u32]) {
    let x = 1u32;
    x = 2;
    data[global_id().x] = x;
}

fn main() {}
