// f32 methods: WGSL built-ins, and the helpers that give Rust's meaning
// where WGSL's differs (`round`, `powi`, `fract`).
#[ld::kernel(workgroup_size = 64)]
fn float_math(x: &[f32], out: &mut [f32], e: i32) {
    let i = global_id().x;
    let v = x[i];
    let mut r = v.sqrt() + v.exp() + v.exp2() + v.ln() + v.log2();
    r += v.powf(1.5) + v.powi(e) + v.powi(3);
    r += v.sin() * v.cos() + v.tan() + v.atan2(2.0);
    r += v.floor() + v.ceil() + v.round() + v.round_ties_even() + v.trunc() + v.fract();
    r += v.mul_add(2.0, 1.0) + v.recip() + v.abs();
    r += v.min(1.0).max(-1.0) + v.clamp(0.0, 2.0);
    r += -v / 3.0 % 2.0;
    out[i] = r;
}
