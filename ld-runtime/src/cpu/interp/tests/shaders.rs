//! WGSL shaders through the interpreter, each result computed here.

use super::{at, shader, shader_under, Dispatch, FUEL};
use crate::cpu::twin::{Fault, Mem, UVec3};
use ld_compiler::ir::Bounds;

/// A little generator for inputs (xorshift), so sums wrap and signs vary.
fn noise(n: usize, mut s: u32) -> Vec<u32> {
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 17;
            s ^= s << 5;
            s
        })
        .collect()
}

const REDUCE: &str = "\
@group(0) @binding(0) var<storage, read> input: array<u32>;
@group(0) @binding(1) var<storage, read_write> sums: array<u32>;
var<workgroup> tile: array<u32, 64>;

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) li: u32, @builtin(workgroup_id) wg: vec3<u32>) {
    tile[li] = input[wg.x * 64u + li];
    workgroupBarrier();
    for (var s = 32u; s > 0u; s = s >> 1u) {
        if li < s {
            tile[li] += tile[li + s];
        }
        workgroupBarrier();
    }
    if li == 0u {
        sums[wg.x] = tile[0];
    }
}
";

/// A tree reduction in workgroup memory: right only if every invocation
/// stops at each barrier of the loop and resumes after it.
#[test]
fn a_tiled_reduction_suspends_at_each_barrier_of_its_loop() {
    let k = shader(REDUCE);
    let input = noise(3 * 64, 7);
    let mut bufs = [("input", input.clone()), ("sums", vec![0; 3])];
    k.run(Dispatch { grid: [3, 1, 1], buffers: &mut bufs, uniforms: &[], fuel: FUEL }).unwrap();
    let expected: Vec<u32> = input.chunks(64).map(|c| c.iter().fold(0u32, |a, &x| a.wrapping_add(x))).collect();
    assert_eq!(bufs[1].1, expected);
}

const HELPER: &str = "\
@group(0) @binding(0) var<storage, read> input: array<i32>;
@group(0) @binding(1) var<storage, read_write> out: array<i32>;

fn add_positive(acc: ptr<function, i32>, x: i32) -> bool {
    if x < 0 {
        return false;
    }
    *acc += x;
    return true;
}

@compute @workgroup_size(4)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    var acc = 0i;
    var taken = 0i;
    for (var k = 0u; k < 8u; k++) {
        if !add_positive(&acc, input[gid.x * 8u + k]) {
            break;
        }
        taken++;
    }
    out[gid.x * 2u] = acc;
    out[gid.x * 2u + 1u] = taken;
}
";

/// A helper (inlined by the front-end) that returns early and writes
/// through a `ptr<function>`: each invocation sums its run of values up
/// to the first negative one.
#[test]
fn a_helper_returns_early_and_writes_through_its_pointer() {
    let k = shader(HELPER);
    let input: Vec<u32> = noise(8 * 8, 3).iter().map(|&x| (x % 100) as i32 - 10).map(|x| x as u32).collect();
    let mut bufs = [("input", input.clone()), ("out", vec![0; 16])];
    k.run(Dispatch { grid: [2, 1, 1], buffers: &mut bufs, uniforms: &[], fuel: FUEL }).unwrap();
    let mut expected = Vec::new();
    for run in input.chunks(8) {
        let taken: Vec<i32> = run.iter().map(|&x| x as i32).take_while(|&x| x >= 0).collect();
        expected.extend([taken.iter().sum::<i32>() as u32, taken.len() as u32]);
    }
    assert_eq!(bufs[1].1, expected);
    assert!(expected.chunks(2).any(|c| c[1] < 8) && expected.chunks(2).any(|c| c[1] > 0), "the input stops some runs early, not all at once");
}

const PARTICLES: &str = "\
struct Particle { pos: vec4<f32>, vel: vec4<f32> }
struct Params { dt: f32, damping: f32 }
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read_write> particles: array<Particle>;

@compute @workgroup_size(8)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if i >= arrayLength(&particles) {
        return;
    }
    var p = particles[i];
    p.vel = p.vel * params.damping;
    p.pos = p.pos + p.vel * params.dt;
    particles[i] = p;
}
";

/// Structs of `vec4<f32>` (structs `LdVec4F32` in the IR) loaded whole,
/// updated per component, stored whole; `arrayLength` ends the
/// invocations past the buffer.
#[test]
fn structs_of_vec4_move_through_storage_word_for_word() {
    let k = shader(PARTICLES);
    let n = 12;
    let floats: Vec<f32> = noise(n * 8, 11).iter().map(|&x| (x % 2000) as f32 / 100.0 - 10.0).collect();
    let (dt, damping) = (0.25f32, 0.9f32);
    let mut bufs = [("particles", floats.iter().map(|x| x.to_bits()).collect())];
    k.run(Dispatch { grid: [2, 1, 1], buffers: &mut bufs, uniforms: &[dt.to_bits(), damping.to_bits()], fuel: FUEL }).unwrap();
    let mut expected = Vec::new();
    for p in floats.chunks(8) {
        let vel: Vec<f32> = p[4..].iter().map(|v| v * damping).collect();
        expected.extend(p[..4].iter().zip(&vel).map(|(x, v)| (x + v * dt).to_bits()));
        expected.extend(vel.iter().map(|v| v.to_bits()));
    }
    assert_eq!(bufs[0].1, expected);
}

const INTEGERS: &str = "\
struct Ints { a: u32, b: u32, zero: u32, s: u32, c: i32, m1: i32, d: i32 }
@group(0) @binding(0) var<uniform> u: Ints;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;

@compute @workgroup_size(1)
fn main() {
    out[0] = u.a + u.b;
    out[1] = u.a * u.b;
    out[2] = u.a / u.zero;
    out[3] = u.a % u.zero;
    out[4] = bitcast<u32>(u.c / u.m1);
    out[5] = bitcast<u32>(u.c % u.m1);
    out[6] = bitcast<u32>(-u.c);
    out[7] = u.a << u.s;
    out[8] = bitcast<u32>(u.c >> u.s);
    out[9] = u.a >> u.s;
    out[10] = bitcast<u32>(u.d / 2i);
    out[11] = bitcast<u32>(u.d % 2i);
    out[12] = bitcast<u32>(i32(f32(u.d) * 1.5));
    out[13] = u32(f32(u.d) * 1.5);
    out[14] = bitcast<u32>(abs(u.c));
    out[15] = u32(u.c < u.d) + 2u * u32(u.a > u.b) + 4u * u32(u.b - u.a < u.b);
    out[16] = bitcast<u32>(u.d - u.c);
    out[17] = bitcast<u32>(max(u.c, u.d)) ^ max(u.a, u.zero);
}
";

/// WGSL's integer rules at run time (operands from the uniform block, so
/// nothing is folded): wrapping, `x / 0 == x`, `x % 0 == 0`, `MIN / -1 ==
/// MIN`, shift amounts modulo 32, arithmetic `>>` on `i32`, float to int
/// rounding toward zero and clamping.
#[test]
fn integer_arithmetic_follows_wgsl() {
    let k = shader(INTEGERS);
    let (a, b, zero, s) = (0xFFFF_FFF0u32, 0x20u32, 0u32, 35u32);
    let (c, m1, d) = (i32::MIN, -1i32, -7i32);
    let uniforms = [a, b, zero, s, c as u32, m1 as u32, d as u32];
    let mut bufs = [("out", vec![0xAAAA_AAAA; 18])];
    k.run(Dispatch { grid: [1, 1, 1], buffers: &mut bufs, uniforms: &uniforms, fuel: FUEL }).unwrap();
    let expected = [
        0x10,                         // a + b wraps
        0xFFFF_FE00,                  // a * b wraps
        a,                            // a / 0 == a
        0,                            // a % 0 == 0
        0x8000_0000,                  // MIN / -1 == MIN
        0,                            // MIN % -1 == 0
        0x8000_0000,                  // -MIN == MIN
        0xFFFF_FF80,                  // a << (35 % 32)
        0xF000_0000,                  // MIN >> 3 keeps the sign
        0x1FFF_FFFE,                  // a >> 3, logical
        (-3i32) as u32,               // -7 / 2 rounds toward zero
        (-1i32) as u32,               // -7 % 2 takes the dividend's sign
        (-10i32) as u32,              // i32(-10.5)
        0,                            // u32(-10.5) clamps to 0
        0x8000_0000,                  // abs(MIN) == MIN
        1 + 2,                        // MIN < -7 signed, a > b unsigned, b - a wraps to 0x30: not < b
        2_147_483_641,                // -7 - MIN, no overflow
        (-7i32) as u32 ^ 0xFFFF_FFF0, // max signed, max unsigned
    ];
    assert_eq!(bufs[0].1, expected);
}

const FLOATS: &str = "\
struct F { a: f32, b: f32, nan: f32, neg: i32 }
@group(0) @binding(0) var<uniform> u: F;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;

@compute @workgroup_size(1)
fn main() {
    out[0] = bitcast<u32>(u.a % u.b);
    out[1] = u32(u.nan < u.a) + 2u * u32(u.nan != u.nan) + 4u * u32(u.nan == u.nan) + 8u * u32(u.a <= u.a) + 16u * u32(-u.a > u.b);
    out[2] = bitcast<u32>(f32(u.neg));
    out[3] = bitcast<u32>(min(u.a, u.b));
    out[4] = bitcast<u32>(clamp(u.a, u.b, 10.0));
    out[5] = bitcast<u32>(-u.a);
    out[6] = countOneBits(bitcast<u32>(u.neg));
    out[7] = reverseBits(bitcast<u32>(u.neg));
    out[8] = bitcast<u32>(u.b / (u.a + 6.0));
}
";

/// Floats: WGSL's `%` (`a - b * trunc(a / b)`: -6 % 3 is +0.0, where
/// Rust's `%` gives -0.0), IEEE comparisons (NaN compares false), the
/// sign flip of `-`, and the bit built-ins on an `i32`'s bits.
#[test]
fn float_arithmetic_follows_wgsl() {
    let k = shader(FLOATS);
    let uniforms = [(-6.0f32).to_bits(), 3.0f32.to_bits(), f32::NAN.to_bits(), (-7i32) as u32];
    let mut bufs = [("out", vec![0xAAAA_AAAA; 9])];
    k.run(Dispatch { grid: [1, 1, 1], buffers: &mut bufs, uniforms: &uniforms, fuel: FUEL }).unwrap();
    let expected = [
        0,                       // +0.0
        2 + 8 + 16,              // only !=, <= and 6 > 3 hold
        (-7.0f32).to_bits(),     // f32(-7)
        (-6.0f32).to_bits(),     // min
        3.0f32.to_bits(),        // clamp
        6.0f32.to_bits(),        // -(-6)
        30,                      // 0xFFFF_FFF9
        0x9FFF_FFFF,             // reversed
        f32::INFINITY.to_bits(), // 3 / 0
    ];
    assert_eq!(bufs[0].1, expected);
}

const ATOMICS: &str = "\
@group(0) @binding(0) var<storage, read> input: array<u32>;
@group(0) @binding(1) var<storage, read_write> hist: array<atomic<u32>>;
@group(0) @binding(2) var<storage, read_write> extremes: array<atomic<i32>>;
@group(0) @binding(3) var<storage, read_write> tickets: array<u32>;

@compute @workgroup_size(32)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let x = input[gid.x];
    atomicAdd(&hist[x % 8u], 1u);
    atomicMax(&extremes[0], i32(x % 100u) - 50);
    atomicMin(&extremes[1], i32(x % 100u) - 50);
    tickets[gid.x] = atomicAdd(&hist[8], 1u);
}
";

/// `atomicAdd` on `array<atomic<u32>>` (a histogram; its old values as
/// tickets, handed out in the schedule's order), and `i32` atomics
/// ordering signed.
#[test]
fn atomics_add_and_order_signed_values() {
    let k = shader(ATOMICS);
    let n = 64;
    let input = noise(n, 5);
    let mut bufs = [("input", input.clone()), ("hist", vec![0; 9]), ("extremes", vec![i32::MIN as u32, i32::MAX as u32]), ("tickets", vec![0; n])];
    k.run(Dispatch { grid: [2, 1, 1], buffers: &mut bufs, uniforms: &[], fuel: FUEL }).unwrap();
    let mut hist = vec![0u32; 9];
    input.iter().for_each(|x| hist[(x % 8) as usize] += 1);
    hist[8] = n as u32;
    assert_eq!(bufs[1].1, hist);
    let values = input.iter().map(|x| (x % 100) as i32 - 50);
    let (max, min) = (values.clone().max().unwrap(), values.min().unwrap());
    assert!(min < 0 && max >= 0, "the inputs span both signs");
    assert_eq!(bufs[2].1, [max as u32, min as u32]);
    assert_eq!(bufs[3].1, (0..n as u32).collect::<Vec<_>>());
}

const UNIFORMS: &str = "\
struct First { a: u32 }
struct Second { b: f32, c: i32, d: vec2<u32> }
@group(0) @binding(0) var<uniform> first: First;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;
@group(0) @binding(2) var<uniform> second: Second;

@compute @workgroup_size(1)
fn main() {
    out[0] = first.a;
    out[1] = bitcast<u32>(second.b * 2.0);
    out[2] = bitcast<u32>(second.c - 1i);
    out[3] = second.d.x + 10u * second.d.y;
}
";

/// A uniform struct's scalars are uniform parameters; each reads its word
/// of the uniform block, counted among the uniforms only (the storage
/// buffer between the two uniforms takes none).
#[test]
fn uniform_structs_read_their_scalars_in_order() {
    let k = shader(UNIFORMS);
    let uniforms = [7, 1.25f32.to_bits(), (-4i32) as u32, 3, 5];
    let mut bufs = [("out", vec![0; 4])];
    k.run(Dispatch { grid: [1, 1, 1], buffers: &mut bufs, uniforms: &uniforms, fuel: FUEL }).unwrap();
    assert_eq!(bufs[0].1, [7, 2.5f32.to_bits(), (-5i32) as u32, 53]);
}

const MATRICES: &str = "\
@group(0) @binding(0) var<storage, read> ms: array<mat4x4<f32>>;
@group(0) @binding(1) var<storage, read_write> out: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> twos: array<mat2x2<f32>>;

@compute @workgroup_size(1)
fn main() {
    let v = vec4<f32>(1.0, 2.0, 3.0, 4.0);
    let sum = ms[0] * 0.5 + ms[1] - ms[0];
    out[0] = sum * v;
    out[1] = v * ms[1];
    out[2] = (ms[0] * ms[1])[2];
    out[3] = transpose(ms[1])[1] + (-1.0 * ms[0])[3];
    let a = mat2x2<f32>(1.0, 2.0, 3.0, 4.0);
    let b = mat2x2<f32>(vec2<f32>(0.0, 1.0), vec2<f32>(1.0, 0.0));
    twos[0] = a * b;
    twos[1][1].x = a[0].y;
    let k = u32(v.y);
    twos[1][0].y = v[k];
    twos[1][1].y = v[k + 5u];
}
";

/// Matrices are arrays of columns: sums, scalar, vector and matrix
/// products, `transpose`, constructors from components and
/// from columns, and a column's component written in place; every figure
/// as linear algebra (column-major, as WGSL) has it. A vector indexed at
/// run time gives its component, or past the end its last.
#[test]
fn matrices_multiply_as_columns() {
    let k = shader(MATRICES);
    // A = ms[0]: column c, row r holds c * 4 + r; B = ms[1]: 10 + that.
    let a = |c: usize, r: usize| (c * 4 + r) as f32;
    let b = |c: usize, r: usize| 10.0 + (c * 4 + r) as f32;
    let words: Vec<u32> = (0..2).flat_map(|m| (0..16).map(move |i| (i as f32 + if m == 1 { 10.0 } else { 0.0 }).to_bits())).collect();
    let mut bufs = [("ms", words), ("out", vec![0; 16]), ("twos", vec![0; 8])];
    k.run(Dispatch { grid: [1, 1, 1], buffers: &mut bufs, uniforms: &[], fuel: FUEL }).unwrap();
    let out: Vec<f32> = bufs[1].1.iter().map(|w| f32::from_bits(*w)).collect();
    let v = [1.0f32, 2.0, 3.0, 4.0];
    for r in 0..4 {
        let sum: f32 = (0..4).map(|c| (a(c, r) * 0.5 + b(c, r) - a(c, r)) * v[c]).sum();
        assert_eq!(out[r], sum, "(A/2 + B - A) v, row {r}");
        let row: f32 = (0..4).map(|k| v[k] * b(r, k)).sum();
        assert_eq!(out[4 + r], row, "v B, component {r}");
        let ab: f32 = (0..4).map(|k| a(k, r) * b(2, k)).sum();
        assert_eq!(out[8 + r], ab, "(A B) column 2, row {r}");
        assert_eq!(out[12 + r], b(r, 1) - a(3, r), "B^T column 1 - A column 3, row {r}");
    }
    let twos: Vec<f32> = bufs[2].1.iter().map(|w| f32::from_bits(*w)).collect();
    // a = [[1, 2], [3, 4]] by columns, b swaps them: a b = [[3, 4], [1, 2]].
    assert_eq!(twos, [3.0, 4.0, 1.0, 2.0, 0.0, 3.0, 2.0, 4.0]);
}

const OUT_OF_BOUNDS: &str = "\
@group(0) @binding(0) var<storage, read> input: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;

@compute @workgroup_size(4)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    var table = array<u32, 4>(1u, 2u, 3u, 4u);
    let i = i32(gid.x) - i32(input[4]);
    out[gid.x] = table[i] + input[gid.x + 2u];
}
";

/// Under Rust's rule, out-of-bounds indices fault at the access's line
/// and column: a buffer's, and a local array's (an `i32` index
/// sign-extended, so -2 is -2, not 2^32 - 2).
#[test]
fn out_of_bounds_accesses_fault_at_their_site_under_rusts_rule() {
    let k = shader_under(OUT_OF_BOUNDS, Bounds::Fault);
    let run = |input: Vec<u32>| {
        let mut bufs = [("input", input), ("out", vec![0; 4])];
        let r = k.run(Dispatch { grid: [1, 1, 1], buffers: &mut bufs, uniforms: &[], fuel: FUEL });
        (r, bufs[1].1.clone())
    };
    // input[4] is past the end: every invocation faults there, the first first.
    let (r, _) = run(vec![0; 4]);
    let site = at(OUT_OF_BOUNDS, "input[4]");
    assert_eq!(r, Err((UVec3::new(0, 0, 0), 0, Fault::OutOfBounds { mem: Some(Mem::Storage(0)), index: 4, len: 4, site })));
    // With i = gid.x - 2, invocation 0 indexes the table at -2.
    let (r, out) = run(vec![10, 20, 30, 40, 2]);
    let site = at(OUT_OF_BOUNDS, "table[i]");
    assert_eq!(r, Err((UVec3::new(0, 0, 0), 0, Fault::OutOfBounds { mem: None, index: -2, len: 4, site })));
    assert_eq!(out, [0; 4]);
    // With i = gid.x, invocation 3 reads input[5], after three wrote.
    let (r, out) = run(vec![10, 20, 30, 40, 0]);
    let site = at(OUT_OF_BOUNDS, "input[gid.x + 2u]");
    assert_eq!(r, Err((UVec3::new(0, 0, 0), 3, Fault::OutOfBounds { mem: Some(Mem::Storage(0)), index: 5, len: 5, site })));
    assert_eq!(out, [31, 42, 3, 0]);
}

const GOES_ON: &str = "\
@group(0) @binding(0) var<storage, read> input: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;
@group(0) @binding(2) var<storage, read_write> count: array<atomic<u32>>;

@compute @workgroup_size(4)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    var table = array<u32, 4>(1u, 2u, 3u, 4u);
    let t = table[i32(gid.x) - 2];
    out[gid.x] = t + input[gid.x + 2u];
    out[gid.x + 3u] = 100u;
    out[gid.x * 2u] += 1000u;
    let old = atomicAdd(&count[gid.x], 1u);
    out[gid.x] += old;
}
";

/// Under WGSL's rule (a shader's), the run goes on past every index out
/// of bounds: a read gives the last element (of a local array too, for a
/// negative index), a write, a compound assignment and an atomic are
/// skipped (the atomic giving 0), and each invocation's first is noted.
#[test]
fn out_of_bounds_accesses_go_on_under_wgsls_rule() {
    let k = shader(GOES_ON);
    let mut bufs = [("input", vec![10, 20, 30, 40]), ("out", vec![0; 4]), ("count", vec![5, 7])];
    let noted = k.run(Dispatch { grid: [1, 1, 1], buffers: &mut bufs, uniforms: &[], fuel: FUEL }).unwrap();
    // Invocation 0: 4 + 30, then 100 at out[3], out[0] += 1000, += 5.
    // Invocation 1: 4 + 40, out[4] skipped, out[2] += 1000, += 7.
    // Invocations 2 and 3: 1 + input[3] and 2 + input[3] (indices 4 and
    // 5), overwriting out[2] and out[3]; the rest skipped, atomics give 0.
    assert_eq!(bufs[1].1, [1039, 51, 41, 42]);
    assert_eq!(bufs[2].1, [6, 8]);
    let (table, input) = (at(GOES_ON, "table[i32(gid.x) - 2]"), at(GOES_ON, "input[gid.x + 2u]"));
    let wg = UVec3::new(0, 0, 0);
    let local = |index| Fault::OutOfBounds { mem: None, index, len: 4, site: table };
    let buffer = |index| Fault::OutOfBounds { mem: Some(Mem::Storage(0)), index, len: 4, site: input };
    // Each invocation's first only: invocation 1's write to out[4] is not.
    assert_eq!(noted, [(wg, 0, local(-2)), (wg, 1, local(-1)), (wg, 2, buffer(4)), (wg, 3, buffer(5))]);
}

const ENDLESS: &str = "\
@group(0) @binding(0) var<storage, read_write> out: array<u32>;

@compute @workgroup_size(1)
fn main() {
    for (var k = 0u; k < 10u; k++) {
        out[1] += k;
    }
    loop {
        if out[0] == 7u {
            break;
        }
    }
}
";

/// Every iteration a loop starts spends one unit of fuel at the loop's
/// site (the one whose condition fails too); a loop that never ends
/// faults there.
#[test]
fn loops_spend_fuel_and_endless_ones_run_out() {
    let k = shader(ENDLESS);
    let run = |first: u32, fuel: u64| {
        let mut bufs = [("out", vec![first, 0])];
        let r = k.run(Dispatch { grid: [1, 1, 1], buffers: &mut bufs, uniforms: &[], fuel });
        (r, bufs[0].1[1])
    };
    // 11 for the `for` (10 iterations and the test that ends it), 1 for `loop`.
    assert_eq!(run(7, 12), (Ok(vec![]), 45));
    let (for_site, loop_site) = (at(ENDLESS, "for"), at(ENDLESS, "loop"));
    assert_eq!(run(7, 11).0, Err((UVec3::new(0, 0, 0), 0, Fault::OutOfFuel { site: loop_site })));
    assert_eq!(run(7, 10), (Err((UVec3::new(0, 0, 0), 0, Fault::OutOfFuel { site: for_site })), 45));
    assert_eq!(run(0, 1000).0, Err((UVec3::new(0, 0, 0), 0, Fault::OutOfFuel { site: loop_site })));
}
