#[ld::kernel(workgroup_size = 64)]
fn k(data: &[f32]) {
    let i = global_id().x;
    data[i] = 1.0;
}

fn main() {}
