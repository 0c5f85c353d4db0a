// A barrier inside a loop whose bound is a scalar parameter (uniform).
#[ld::kernel(workgroup_size = 64)]
fn k(data: &mut [f32], n: u32) {
    let tile = shared::<[f32; 64]>();
    let lid = local_index();
    for step in 0..n {
        tile[lid] = step as f32;
        barrier();
        if lid == 0 {
            data[workgroup_id().x] += tile[63];
        }
        barrier();
    }
}

fn main() {}
