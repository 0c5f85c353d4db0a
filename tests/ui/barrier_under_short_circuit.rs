#[ld::kernel(workgroup_size = 64)]
fn k(data: &mut [u32], n: u32) {
    if n > 0 && global_id().x < n {
        barrier();
    }
    data[0] = 0;
}

fn main() {}
