#[ld::kernel(workgroup_size = 64)]
fn k(data: &mut [u32]) {
    fn add(a: u32, b: u32) -> u32 {
        a + b
    }
    data[global_id().x] = add(1);
}

fn main() {}
