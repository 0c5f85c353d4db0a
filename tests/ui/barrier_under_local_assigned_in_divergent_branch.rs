#[ld::kernel(workgroup_size = 64)]
fn k(data: &mut [u32]) {
    let mut flag = 0u32;
    if local_index() < 32 {
        flag = 1;
    }
    if flag == 1 {
        barrier();
    }
    data[global_id().x] = flag;
}

fn main() {}
