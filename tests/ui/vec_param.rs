#[ld::kernel(workgroup_size = 64)]
fn k(data: Vec<f32>) {
    let _ = data;
}

fn main() {}
