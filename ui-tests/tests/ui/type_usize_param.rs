use ld_macros as ld;
#[ld::kernel(workgroup_size = 64)]
fn k(data: &mut [f32], n: usize) {
    let i = global_id().x;
    if i < n as u32 {
        data[i] = 0.0;
    }
}

fn main() {}
