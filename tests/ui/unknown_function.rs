#[ld::kernel(workgroup_size = 64)]
fn k(data: &mut [f32]) {
    let i = global_id().x;
    data[i] = fast_inverse_sqrt(data[i]);
}

fn main() {}
