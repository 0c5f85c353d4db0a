#[ld::kernel(workgroup_size = 64)]
fn k(data: &mut [u32]) {
    let s = shared::<u32>();
    data[global_id().x] = s;
}

fn main() {}
