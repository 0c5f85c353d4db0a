// In-place layer norm over the channel axis of x (B, T, C), C packed as vec4.
// One workgroup per token (dispatch (1, T, B)); per-lane Welford statistics
// are merged pairwise in workgroup memory, lane 0 turns them into mean and
// 1/stddev, then every lane normalises its strided slice and applies the
// packed-half affine weights.

struct Shape {
    C: u32,
    T: u32,
    B: u32,
    _pad: u32,
}

@group(0) @binding(0) var<uniform> shape: Shape;
@group(0) @binding(1) var<storage, read> gamma: array<vec2<u32>>;   // (C/4) x 4 halves
@group(0) @binding(2) var<storage, read> beta: array<vec2<u32>>;    // (C/4) x 4 halves
@group(0) @binding(3) var<storage, read_write> x: array<vec4<f32>>; // (B, T, C/4)
@group(0) @binding(4) var<storage, read_write> stats: array<vec4<f32>>; // (B, T)

override BLOCK_SIZE: u32 = 128u;
override EPS: f32 = 1.0e-5;

var<workgroup> w_mean: array<vec4<f32>, BLOCK_SIZE>;
var<workgroup> w_m2: array<vec4<f32>, BLOCK_SIZE>;
var<workgroup> w_count: array<vec4<u32>, BLOCK_SIZE>;
var<workgroup> tok_mean: f32;
var<workgroup> tok_rstd: f32;

fn unpack_half4(p: vec2<u32>) -> vec4<f32> {
    return vec4<f32>(unpack2x16float(p.x), unpack2x16float(p.y));
}

// Chan et al. pairwise merge of (count, mean, M2).
fn merge_step(lane: u32, half: u32) {
    if lane < half {
        let n_a = w_count[lane];
        let n_b = w_count[lane + half];
        let mean_a = w_mean[lane];
        let mean_b = w_mean[lane + half];
        let n = n_a + n_b;
        let nf = vec4<f32>(n);
        let delta = mean_b - mean_a;
        let some = n > vec4<u32>(0u);
        w_count[lane] = n;
        w_mean[lane] = select(vec4<f32>(0.0), (mean_a * vec4<f32>(n_a) + mean_b * vec4<f32>(n_b)) / nf, some);
        w_m2[lane] = select(vec4<f32>(0.0),
            w_m2[lane] + w_m2[lane + half] + delta * delta * vec4<f32>(n_a * n_b) / nf, some);
    }
    workgroupBarrier();
}

@compute @workgroup_size(BLOCK_SIZE, 1, 1)
fn layer_norm(@builtin(global_invocation_id) gid: vec3<u32>) {
    let c4 = shape.C / 4u;
    let lane = gid.x;
    let token = gid.y;
    let batch = gid.z;
    let row = (batch * shape.T + token) * c4;

    var n = vec4<u32>(0u);
    var mean = vec4<f32>(0.0);
    var m2 = vec4<f32>(0.0);
    for (var i = lane; i < c4; i += BLOCK_SIZE) {
        let v = x[row + i];
        n += 1u;
        let d = v - mean;
        mean += d / vec4<f32>(n);
        m2 += d * (v - mean);
    }
    w_count[lane] = n;
    w_mean[lane] = mean;
    w_m2[lane] = m2;
    workgroupBarrier();

    for (var half = BLOCK_SIZE / 2u; half > 0u; half >>= 1u) {
        merge_step(lane, half);
    }

    if lane == 0u {
        let cnt = vec4<f32>(w_count[0]);
        let mu4 = w_mean[0];
        let mu = dot(mu4, cnt) / f32(shape.C);
        let spread = mu4 - vec4<f32>(mu);
        let variance = (dot(w_m2[0], vec4<f32>(1.0)) + dot(spread * spread, cnt)) / f32(shape.C) + EPS;
        tok_mean = mu;
        tok_rstd = inverseSqrt(variance);
        stats[batch * shape.T + token] = vec4<f32>(mu, tok_rstd, variance, 0.0);
    }
    workgroupBarrier();

    for (var i = lane; i < c4; i += BLOCK_SIZE) {
        let v = (x[row + i] - vec4<f32>(tok_mean)) * tok_rstd;
        x[row + i] = fma(v, unpack_half4(gamma[i]), unpack_half4(beta[i]));
    }
}
