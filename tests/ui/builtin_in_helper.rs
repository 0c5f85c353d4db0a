#[ld::kernel(workgroup_size = 64)]
fn k(data: &mut [u32]) {
    fn me() -> u32 {
        global_id().x
    }
    data[me()] = 1;
}

fn main() {}
