#[ld::kernel(workgroup_size = 64)]
fn k(data: &mut [u32]) {
    let s = "hello";
    data[global_id().x] = 0;
}

fn main() {}
