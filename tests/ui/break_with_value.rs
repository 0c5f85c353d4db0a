#[ld::kernel(workgroup_size = 64)]
fn k(data: &mut [u32]) {
    let mut j = 0u32;
    let found = loop {
        if j > 10 {
            break j;
        }
        j += 1;
    };
    data[global_id().x] = found;
}

fn main() {}
