#[ld::kernel(workgroup_size = 64)]
fn k(data: &mut [u32], n: u32) {
    let mut count = 0u32;
    'outer: for a in 0..n {
        for b in 0..n {
            if a * b > 100 {
                break 'outer;
            }
            count += 1;
        }
    }
    data[global_id().x] = count;
}

fn main() {}
