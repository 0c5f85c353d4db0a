#[ld::kernel(workgroup_size = 64)]
fn k(data: &mut [i32]) {
    let big = 3000000000;
    data[global_id().x] = big;
}

fn main() {}
