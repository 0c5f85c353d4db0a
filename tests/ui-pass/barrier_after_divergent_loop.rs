// A loop whose condition depends on the invocation id but contains no
// barrier; the barrier after it is reached by every invocation.
#[ld::kernel(workgroup_size = 64)]
fn k(data: &mut [u32]) {
    let tile = shared::<[u32; 64]>();
    let lid = local_index();
    let mut acc = 0u32;
    let mut j = 0u32;
    while j < lid {
        acc += j;
        j += 1;
    }
    tile[lid] = acc;
    barrier();
    data[global_id().x] = tile[63 - lid];
}

fn main() {}
