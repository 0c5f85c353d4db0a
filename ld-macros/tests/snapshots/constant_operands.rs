// Operations WGSL's constant evaluation would reject, on constant operands:
// integer division, remainder and shifts go through ld's helpers (whose
// operands are parameters), compound assignments too (through a pointer
// where the place has an index); float arithmetic that ld finds not finite
// goes through `ld_opaque_f32`, finite float arithmetic stays a constant.
#[ld::kernels]
mod constant_operands {
    const N: i32 = 7;
    const D: i32 = 0;

    #[kernel(workgroup_size = 1)]
    pub fn constant_operands(s: &mut [i32], u: &mut [u32], f: &mut [f32]) {
        s[0] = i32::MIN / -1;
        s[1] = N % D;
        s[2] = 1 << 35;
        s[3] = i32::MAX + 1;
        s[4] = -i32::MIN;
        s[5] = s[4] >> 40u32;
        s[6] /= 0;
        let mut q = [N, D];
        q[1] <<= 33;
        let mut r = 9u32;
        r %= 0;
        u[0] = r + q[1] as u32;
        f[0] = 1.0 / 0.0;
        f[1] = (-1.0f32).sqrt();
        f[2] = 9.5 * 0.5;
    }
}
