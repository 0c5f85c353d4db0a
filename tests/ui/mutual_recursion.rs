#[ld::kernel(workgroup_size = 64)]
fn k(data: &mut [u32]) {
    fn even(n: u32) -> u32 {
        if n == 0 { 1 } else { odd(n - 1) }
    }
    fn odd(n: u32) -> u32 {
        if n == 0 { 0 } else { even(n - 1) }
    }
    let i = global_id().x;
    data[i] = even(data[i]);
}

fn main() {}
