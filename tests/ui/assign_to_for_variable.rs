#[ld::kernel(workgroup_size = 64)]
fn k(data: &mut [u32], n: u32) {
    for i in 0..n {
        i += 1;
        data[i] = 0;
    }
}

fn main() {}
