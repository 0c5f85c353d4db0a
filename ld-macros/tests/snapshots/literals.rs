// Literals and constants at the edges of their types: i32::MIN (which WGSL
// cannot write as a negated literal), u32::MAX, f32 limits, hex, binary,
// suffixes, exponents, PI, and unsuffixed literals typed by their use.
#[ld::kernel(workgroup_size = 1)]
fn literals(u: &mut [u32], s: &mut [i32], f: &mut [f32]) {
    const BIG: u32 = 0xFFFF_0000;
    const NEG: i32 = -2147483648;
    s[0] = i32::MIN;
    s[1] = NEG;
    s[2] = i32::MAX;
    s[3] = -1;
    s[4] = -0x10;
    u[0] = u32::MAX;
    u[1] = BIG;
    u[2] = 0b1010;
    u[3] = 4_000_000_000;
    u[4] = 7;
    f[0] = f32::MAX;
    f[1] = f32::MIN;
    f[2] = f32::EPSILON;
    f[3] = core::f32::consts::PI;
    f[4] = 1e-3;
    f[5] = -2.5e10;
    f[6] = 0.1f32;
    f[7] = 3.0;
    f[8] = f32::MIN_POSITIVE;
    let k = 3;
    s[5] = k * 2;
    let mut arr = [0u32; 4];
    arr[k as u32 % 4] = 9;
    u[5] = arr[3];
}
