#[ld::kernel(workgroup_size = 64)]
fn k(data: &mut [u32]) {
    fn half(x: u32) -> u32 {
        x / 2
    }
    if half(local_index()) == 1 {
        barrier();
    }
    data[0] = 0;
}

fn main() {}
