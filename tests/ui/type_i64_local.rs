#[ld::kernel(workgroup_size = 64)]
fn k(data: &mut [i32]) {
    let x = 1i64;
    data[global_id().x] = x as i32;
}

fn main() {}
