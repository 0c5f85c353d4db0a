use ld_macros as ld;
#[ld::kernel(workgroup_size = 64)]
fn k(data: &mut [u32]) {
    let i = global_id().x;
    data[i] = match i % 3 {
        0 => 10,
        1 => 20,
        _ => 30,
    };
}

fn main() {}
