#[ld::kernel(workgroup_size = 64)]
fn k(data: &mut [f32]) -> f32 {
    data[global_id().x] = 0.0;
    1.0
}

fn main() {}
