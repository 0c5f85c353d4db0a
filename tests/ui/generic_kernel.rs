#[ld::kernel(workgroup_size = 64)]
fn k<T>(data: &mut [T]) {
    let _ = data;
}

fn main() {}
