#[ld::kernel(workgroup_size = 64)]
fn k(data: &mut [f32]) {
    let x: f64 = 1.0;
    data[global_id().x] = x as f32;
}

fn main() {}
