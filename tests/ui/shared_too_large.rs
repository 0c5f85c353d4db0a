#[ld::kernel(workgroup_size = 64)]
fn k(data: &mut [f32]) {
    let small = shared::<[f32; 64]>();
    let big = shared::<[f32; 65536]>();
    big[local_index()] = small[0];
    data[0] = big[0];
}

fn main() {}
