// Conversions: numeric `as` between u32, i32 and f32, bit casts with
// `to_bits` / `from_bits` and `as` between the integer types, bool results.
#[ld::kernel(workgroup_size = 64)]
fn casts(f: &[f32], u: &mut [u32], s: &mut [i32], g: &mut [f32]) {
    let i = global_id().x;
    let x = f[i];
    u[i] = x as u32;
    s[i] = x as i32;
    let bits = x.to_bits();
    g[i] = f32::from_bits(bits ^ 0x8000_0000);
    let signed = bits as i32;
    s[i] += signed >> 31;
    u[i] += (signed as u32) >> 31;
    g[i] += (u[i] as f32) * (s[i] as f32);
    let positive = x > 0.0;
    u[i] += positive as u32;
    g[i] += x.abs() as i32 as f32;
}
