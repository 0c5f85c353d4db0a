#[ld::kernel(workgroup_size = 64)]
fn k(data: &mut [u32]) {
    unsafe {
        data[global_id().x] = 1;
    }
}

fn main() {}
