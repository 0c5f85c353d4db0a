#[ld::kernel(workgroup_size = 64)]
fn k(data: &mut [u32]) {
    let i = local_index();
    data[i.x] = 1;
}

fn main() {}
