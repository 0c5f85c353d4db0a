// A non-uniform early return is fine in a kernel without barriers.
#[ld::kernel(workgroup_size = 64)]
fn k(data: &mut [f32], n: u32) {
    let i = global_id().x;
    if i >= n {
        return;
    }
    data[i] = data[i] * 2.0;
}

fn main() {}
