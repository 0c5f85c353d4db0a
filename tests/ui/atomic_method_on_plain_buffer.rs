#[ld::kernel(workgroup_size = 64)]
fn k(data: &mut [u32]) {
    data[0].fetch_add(1);
}

fn main() {}
