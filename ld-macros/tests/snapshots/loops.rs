// Every loop form: `for` over `a..b` (counter in the continuing block),
// `a..=b`, `step_by`, `rev`; `while`, `loop` with `break`, `continue`, and
// an early `return`.
#[ld::kernel(workgroup_size = 64)]
fn loops(data: &mut [i32], n: u32) {
    let i = global_id().x;
    if i >= data.len() {
        return;
    }
    let mut acc = 0i32;
    for k in 0..n {
        if k == 3 {
            continue;
        }
        acc += k as i32;
    }
    for k in 1..=n {
        acc -= k as i32;
    }
    for k in (0..n).step_by(4) {
        if k > 100 {
            break;
        }
        acc ^= k as i32;
    }
    for k in (0..n).rev() {
        acc = acc.wrapping_mul(3) + k as i32;
    }
    for k in (2..=10i32).rev() {
        acc += k;
    }
    for k in (1..=n).step_by(3) {
        acc -= k as i32;
    }
    let mut j = 0u32;
    while j < i && j < 10 {
        j += 1;
    }
    loop {
        acc >>= 1;
        if acc < 16 || j == 0 {
            break;
        }
        j -= 1;
    }
    data[i] = acc;
}
