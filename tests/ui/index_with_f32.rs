#[ld::kernel(workgroup_size = 64)]
fn k(data: &mut [u32], x: f32) {
    data[x] = 1;
}

fn main() {}
