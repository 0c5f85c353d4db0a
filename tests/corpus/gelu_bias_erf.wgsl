// Bias-add with row broadcast followed by an erf-based GELU, as two
// elementwise passes over vec4-packed tensors wrapped in storage structs.
// Pass 1 (add_bias):  hidden = input * gain + bias[col]   (bias broadcast over rows)
// Pass 2 (gelu):      hidden = 0.5 * h * (1 + erf(h / sqrt(2)))   in place

struct ArrayVector {
    data: array<vec4<f32>>,
};

// Bias table with a per-tensor gain in front of the runtime-sized bias vector.
struct BiasTable {
    gain: vec4<f32>,
    bias: array<vec4<f32>>,
};

struct GeluParams {
    inv_sqrt2: f32,
    erf_cubic: f32,   // cubic coefficient of the tanh erf approximation
    erf_clamp: f32,
    half_scale: f32,
};

@group(0) @binding(0) var<storage, read> input_0: ArrayVector;        // (rows, hidden/4)
@group(0) @binding(1) var<storage, read> input_1: BiasTable;          // gain + bias (hidden/4)
@group(0) @binding(2) var<storage, read_write> output_0: ArrayVector; // (rows, hidden/4)
@group(1) @binding(0) var<uniform> params: GeluParams;

override WORKGROUP_X: u32 = 64u;
const PI: f32 = 3.1415927;

fn erf4(v: vec4<f32>) -> vec4<f32> {
    var t = 2.0 / sqrt(PI) * (v + v * v * v * params.erf_cubic);
    t = clamp(t, vec4<f32>(-params.erf_clamp), vec4<f32>(params.erf_clamp));
    return tanh(t);
}

@compute @workgroup_size(WORKGROUP_X, 1, 1)
fn add_bias(@builtin(global_invocation_id) global_id: vec3<u32>) {
    let gidx = global_id.x;
    // The tail workgroup overhangs the tensor: the length comes from the
    // runtime-sized last member of the output struct.
    if gidx >= arrayLength(&output_0.data) {
        return;
    }
    let cols = arrayLength(&input_1.bias);
    output_0.data[gidx] = fma(input_0.data[gidx], input_1.gain, input_1.bias[gidx % cols]);
}

@compute @workgroup_size(WORKGROUP_X, 1, 1)
fn gelu(@builtin(global_invocation_id) global_id: vec3<u32>) {
    let gidx = global_id.x;
    if gidx >= arrayLength(&output_0.data) {
        return;
    }
    let h = output_0.data[gidx];
    output_0.data[gidx] = params.half_scale * h * (vec4<f32>(1.0) + erf4(h * params.inv_sqrt2));
}
