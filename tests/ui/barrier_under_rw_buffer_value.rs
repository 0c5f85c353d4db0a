#[ld::kernel(workgroup_size = 64)]
fn k(data: &mut [u32]) {
    if data[0] > 0 {
        barrier();
    }
}

fn main() {}
