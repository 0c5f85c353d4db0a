#[ld::kernel(workgroup_size = 64)]
fn k(src: &[f32], dst: &mut [f32]) {
    fn zero(v: &mut [f32]) {
        v[0] = 0.0;
    }
    zero(&mut src[global_id().x..]);
    dst[0] = 1.0;
}

fn main() {}
