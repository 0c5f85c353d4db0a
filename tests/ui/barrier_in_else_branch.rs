#[ld::kernel(workgroup_size = 64)]
fn k(data: &mut [u32]) {
    if local_id().x == 0 {
        data[workgroup_id().x] = 0;
    } else {
        barrier();
    }
}

fn main() {}
