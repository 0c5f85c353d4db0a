use ld_macros as ld;
#[ld::kernel(workgroup_size = 64)]
fn k(data: &mut [u32]) {
    fn sync() {
        barrier();
    }
    data[global_id().x] = 1;
    sync();
}

fn main() {}
