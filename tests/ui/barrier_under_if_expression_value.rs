#[ld::kernel(workgroup_size = 64)]
fn k(data: &mut [u32]) {
    let m = if local_index() < 3 { 1u32 } else { 2u32 };
    if m == 1 {
        barrier();
    }
    data[0] = m;
}

fn main() {}
