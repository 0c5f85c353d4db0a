#[ld::kernel(workgroup_size = 64)]
fn k(data: &mut [u32]) {
    let i = global_id().x;
    data[i] = data.get(i)?;
}

fn main() {}
