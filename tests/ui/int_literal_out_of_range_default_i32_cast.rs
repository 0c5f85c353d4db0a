#[ld::kernel(workgroup_size = 64)]
fn k(data: &mut [f32]) {
    let big = 3000000000;
    data[global_id().x] = big as f32;
}

fn main() {}
