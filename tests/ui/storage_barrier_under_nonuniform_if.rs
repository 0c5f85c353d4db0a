#[ld::kernel(workgroup_size = 64)]
fn k(data: &mut [u32]) {
    let lid = local_index();
    if lid % 2 == 0 {
        data[global_id().x] = 1;
        storage_barrier();
    }
}

fn main() {}
