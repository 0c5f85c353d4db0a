#[ld::kernel(workgroup_size = 64)]
fn k(data: &mut [u32], out: &mut [u32]) {
    let mut s = 0u32;
    for x in data.iter() {
        s += *x;
    }
    out[global_id().x] = s;
}

fn main() {}
