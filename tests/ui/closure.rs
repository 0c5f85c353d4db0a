#[ld::kernel(workgroup_size = 64)]
fn k(data: &mut [f32]) {
    let sq = |x: f32| x * x;
    let i = global_id().x;
    data[i] = sq(data[i]);
}

fn main() {}
