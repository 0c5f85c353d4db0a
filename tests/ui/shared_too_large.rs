#[ld::kernel(workgroup_size = 64)]
fn k(data: &mut [f32]) {
    let big = shared::<[f32; 65536]>();
    big[local_index()] = 1.0;
    barrier();
    data[global_id().x] = big[0];
}

fn main() {}
