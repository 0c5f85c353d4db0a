use ld_macros as ld;
#[ld::kernel(workgroup_size = 64)]
fn k(data: &mut [u32], n: u32) {
    let mut x = 0u32;
    for s in 0..n {
        if x > 3 {
            barrier();
        }
        x = local_index() + s;
    }
    data[global_id().x] = x;
}

fn main() {}
