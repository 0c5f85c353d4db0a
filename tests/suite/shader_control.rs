//! WGSL control flow as shaders write it, beyond `if`, `for` and
//! `while`: a `loop` ending with `break if` (which its `continue` reaches
//! and its `break` skips), a barrier in `continuing`, a `continue` some
//! invocations take after the iteration's barriers, and a loop bound
//! read before the loop from a variable that varies later. Each computes
//! what WGSL says on both backends in every mode, and a barrier removed
//! makes its race visible.

use crate::support::runtimes;
use ld::Mode;

const N: usize = 128;

/// `src` loaded from `file`, its entry point `main`.
fn kernel(src: &str, file: &str) -> ld::ShaderKernel {
    let shader = ld::Shader::parse(src.to_string(), file.as_ref()).unwrap();
    ld::ShaderKernel::new(&shader, "main", &[]).unwrap()
}

/// Why loading `src` fails.
fn refusal(src: &str, file: &str) -> String {
    let shader = ld::Shader::parse(src.to_string(), file.as_ref()).unwrap();
    ld::ShaderKernel::new(&shader, "main", &[]).map(drop).unwrap_err().to_string()
}

/// Runs `kernel` over `N` invocations in every mode on both backends,
/// `input` (if any) at binding 0 and the output at the next: the output
/// must be `want`, and no mode may report a race.
fn runs_as_wgsl_says(kernel: &ld::ShaderKernel, input: Option<&[u32]>, want: &[u32]) {
    for rt in runtimes() {
        for mode in [Mode::Native, Mode::Check, Mode::Deterministic, Mode::Exact] {
            let what = format!("{:?} {mode:?}", rt.backend());
            let input = input.map(|i| rt.upload(i).unwrap());
            let mut out = rt.zeros::<u32>(want.len()).unwrap();
            let bindings = match &input {
                Some(i) => ld::Bindings::new().buffer(0, 0, i).buffer(0, 1, &mut out),
                None => ld::Bindings::new().buffer(0, 0, &mut out),
            };
            let run = kernel.launch(&rt, [N as u32 / 64, 1, 1], bindings).unwrap().mode(mode).run();
            let run = run.unwrap_or_else(|e| panic!("{what}: {e}"));
            assert_eq!(out.to_vec().unwrap(), want, "{what}");
            if let Some(r) = &run.report {
                assert!(!r.has_races(), "{what}: {r}");
            }
        }
    }
}

/// Collatz steps counted by a `loop` whose `continuing` block ends with
/// `break if`, as naga's SPIR-V reader writes a `do { } while` loop.
const BREAK_IF: &str = "\
@group(0) @binding(0) var<storage, read_write> steps: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
    var x = g.x + 1u;
    var n = 0u;
    loop {
        if (x % 2u == 0u) { x = x / 2u; } else { x = 3u * x + 1u; }
        continuing {
            n += 1u;
            break if x == 1u;
        }
    }
    steps[g.x] = n;
}
";

#[test]
fn a_loop_ending_with_break_if_runs_its_body_then_tests() {
    // The body runs before the first test: x = 1 takes 1 -> 4 -> 2 -> 1.
    let collatz = |mut x: u32| {
        let mut n = 0;
        loop {
            x = if x.is_multiple_of(2) { x / 2 } else { 3 * x + 1 };
            n += 1;
            if x == 1 {
                return n;
            }
        }
    };
    let want: Vec<u32> = (0..N as u32).map(|i| collatz(i + 1)).collect();
    assert_eq!(want[0], 3);
    runs_as_wgsl_says(&kernel(BREAK_IF, "collatz.wgsl"), None, &want);
}

/// The same loop with a `continue` (which runs `continuing`, so its
/// `break if`) and a `break` (which skips both) in its body.
const BREAK_IF_CONTINUE: &str = "\
@group(0) @binding(0) var<storage, read_write> steps: array<vec2<u32>>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
    var x = g.x + 1u;
    var n = 0u;
    var odd = 0u;
    loop {
        if (x % 2u == 0u) {
            x = x / 2u;
            continue;
        }
        x = 3u * x + 1u;
        odd += 1u;
        if (odd == 6u) { break; }
        continuing {
            n += 1u;
            break if x == 1u;
        }
    }
    steps[g.x] = vec2(n, odd);
}
";

#[test]
fn continue_and_break_in_a_loop_ending_with_break_if_go_where_wgsl_says() {
    let collatz = |mut x: u32| {
        let (mut n, mut odd) = (0, 0);
        loop {
            if x.is_multiple_of(2) {
                x /= 2;
            } else {
                x = 3 * x + 1;
                odd += 1;
                if odd == 6 {
                    return [n, odd];
                }
            }
            n += 1;
            if x == 1 {
                return [n, odd];
            }
        }
    };
    let want: Vec<u32> = (0..N as u32).flat_map(|i| collatz(i + 1)).collect();
    // Some invocations leave by the `break`, skipping `continuing`.
    assert!(want.chunks(2).any(|c| c[1] == 6) && want.chunks(2).any(|c| c[1] < 6));
    runs_as_wgsl_says(&kernel(BREAK_IF_CONTINUE, "collatz.wgsl"), None, &want);
}

/// A tiled sum whose barrier sits in `continuing`: each step's reads of
/// the tile and the next step's writes are ordered by it.
const BARRIER_IN_CONTINUING: &str = "\
var<workgroup> tile: array<u32, 64>;
@group(0) @binding(0) var<storage, read_write> out: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) l: u32, @builtin(global_invocation_id) g: vec3<u32>) {
    var sum = 0u;
    var step = 0u;
    loop {
        if (step == 4u) { break; }
        tile[l] = g.x * 10u + step;
        workgroupBarrier();
        sum += tile[(l + step + 1u) % 64u];
        continuing {
            workgroupBarrier();
            step++;
        }
    }
    out[g.x] = sum;
}
";

#[test]
fn a_barrier_in_continuing_orders_each_step() {
    let want: Vec<u32> = (0..N as u32).map(|g| (0..4).map(|s| (g / 64 * 64 + (g % 64 + s + 1) % 64) * 10 + s).sum()).collect();
    runs_as_wgsl_says(&kernel(BARRIER_IN_CONTINUING, "tiles.wgsl"), None, &want);
    // Without it, the next step's write meets this step's read.
    let racy = BARRIER_IN_CONTINUING.replace("            workgroupBarrier();\n            step++;", "            step++;");
    let kernel = kernel(&racy, "tiles.wgsl");
    for rt in runtimes() {
        let mut out = rt.zeros::<u32>(N).unwrap();
        let report = kernel.launch(&rt, [N as u32 / 64, 1, 1], ld::Bindings::new().buffer(0, 0, &mut out)).unwrap().exact().unwrap();
        assert!(report.has_races(), "{:?}: {report}", rt.backend());
    }
}

/// A tiled loop as a rasterizer's backward pass writes it (gausplat's
/// `rasterize_backwards.wgsl`): a batch loaded into workgroup memory
/// between two barriers, then invocations with nothing to do in this
/// batch `continue`. Every invocation reaches every barrier, and the
/// counter `continuing` advances stays uniform.
const SKIP_AFTER_BARRIERS: &str = "\
var<workgroup> batch: array<u32, 64>;
@group(0) @binding(0) var<storage, read> items: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) l: u32, @builtin(global_invocation_id) g: vec3<u32>) {
    var acc = 0u;
    for (var b = 0u; b < 4u; b++) {
        workgroupBarrier();
        batch[l] = items[b * 64u + l];
        workgroupBarrier();
        if ((g.x + b) % 3u == 0u) {
            continue;
        }
        acc += batch[63u - l];
    }
    out[g.x] = acc;
}
";

#[test]
fn a_continue_after_the_iterations_barriers_keeps_them_uniform() {
    let items: Vec<u32> = (0..256).map(|i| i * 7 + 1).collect();
    let want: Vec<u32> = (0..N as u32).map(|g| (0..4).filter(|b| (g + b) % 3 != 0).map(|b| items[(b * 64 + 63 - g % 64) as usize]).sum()).collect();
    runs_as_wgsl_says(&kernel(SKIP_AFTER_BARRIERS, "batches.wgsl"), Some(&items), &want);
    // The same `continue` before the second barrier makes it divergent.
    let divergent = SKIP_AFTER_BARRIERS.replace(
        "        workgroupBarrier();\n        if ((g.x + b) % 3u == 0u) {\n            continue;\n        }\n",
        "        if ((g.x + b) % 3u == 0u) {\n            continue;\n        }\n        workgroupBarrier();\n",
    );
    assert_ne!(divergent, SKIP_AFTER_BARRIERS);
    let err = refusal(&divergent, "batches.wgsl");
    assert!(
        err.contains("this workgroup barrier is not reached by every invocation") && err.contains("this `continue` is taken by only some invocations"),
        "{err}"
    );
}

/// A batch count read before the loop from a variable the loop later
/// lowers only where the invocation has work (gausplat's
/// `tile_point_count -= batch_point_count` after its `continue`): the
/// bound was fixed before any invocation changed the variable.
const COUNT_DOWN: &str = "\
var<workgroup> tile: array<u32, 64>;
@group(0) @binding(0) var<storage, read_write> out: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) l: u32, @builtin(global_invocation_id) g: vec3<u32>) {
    var left = 100u;
    let batches = (left + 31u) / 32u;
    var acc = 0u;
    for (var b = 0u; b < batches; b++) {
        workgroupBarrier();
        tile[l] = b + 1u;
        workgroupBarrier();
        if (g.x % 2u == 0u) {
            continue;
        }
        let here = min(left, 32u);
        acc += here * tile[63u - l];
        left -= here;
    }
    out[g.x] = acc;
}
";

#[test]
fn a_bound_read_before_the_loop_varies_only_later() {
    // Odd invocations take 32, 32, 32 and 4 of the 100 in batches 1..4.
    let want: Vec<u32> = (0..N as u32).map(|g| if g % 2 == 0 { 0 } else { 32 + 32 * 2 + 32 * 3 + 4 * 4 }).collect();
    runs_as_wgsl_says(&kernel(COUNT_DOWN, "count.wgsl"), None, &want);
    // Bounded by `left` itself, the loop's later iterations diverge.
    let divergent = COUNT_DOWN.replace("b < batches", "b * 32u < left + b * 32u - 1u");
    assert_ne!(divergent, COUNT_DOWN);
    let err = refusal(&divergent, "count.wgsl");
    assert!(err.contains("this workgroup barrier is not reached by every invocation"), "{err}");
}
