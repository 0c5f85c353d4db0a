#[ld::kernel(workgroup_size = 64)]
fn k(data: &mut [u32]) {
    let w = &data[local_index()..];
    if w.len() > 8 {
        barrier();
    }
}

fn main() {}
