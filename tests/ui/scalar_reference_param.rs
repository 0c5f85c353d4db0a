#[ld::kernel(workgroup_size = 64)]
fn k(out: &mut f32) {
    *out = 1.0;
}

fn main() {}
