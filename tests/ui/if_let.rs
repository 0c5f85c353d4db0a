#[ld::kernel(workgroup_size = 64)]
fn k(data: &mut [u32]) {
    let i = global_id().x;
    if let 0 = i {
        data[i] = 1;
    }
}

fn main() {}
