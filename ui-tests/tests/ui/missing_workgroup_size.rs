use ld_macros as ld;
#[ld::kernel]
fn k(data: &mut [u32]) {
    data[global_id().x] = 0;
}

fn main() {}
