use ld_macros as ld;
#[ld::kernel(workgroup_size = 64)]
fn k(data: &mut [f32], scale: f32) {
    let i = global_id().x;
    data[i] = i + scale;
}

fn main() {}
