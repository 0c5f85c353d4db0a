// Short-time Fourier transform of an audio signal split into fixed-size
// windows: a windowing pass weights every sample, then one workgroup per
// window bit-reverses its samples and runs the radix-2 butterflies in place
// in the storage buffers, separating the stages with workgroupBarrier.

struct FourierParams {
  windowSize: u32,
  windowCount: u32,
  inverse: u32,
};

struct WindowingParams {
  windowSize: u32,
  paddedWindowSize: u32,
  windowCount: u32,
};

@group(0) @binding(0) var<storage, read_write> dataReal: array<f32>;
@group(0) @binding(1) var<storage, read_write> dataImag: array<f32>;
@group(0) @binding(2) var<storage, read> reverseTable: array<u32>;
@group(0) @binding(3) var<storage, read> trigTable: array<f32>;   // cos, sin pairs
@group(0) @binding(4) var<uniform> params: FourierParams;
@group(0) @binding(5) var<uniform> windowing: WindowingParams;
@group(0) @binding(6) var<storage, read> windowFunction: array<f32>;

const LANES: u32 = 64u;

@compute @workgroup_size(64)
fn apply_window(@builtin(global_invocation_id) gid: vec3<u32>) {
  let sample = gid.x;
  let window = gid.y;
  if (sample >= windowing.windowSize || window >= windowing.windowCount) {
    return;
  }
  dataReal[windowing.paddedWindowSize * window + sample] *= windowFunction[sample];
}

fn twiddleSign() -> f32 {
  return select(-1.0, 1.0, params.inverse == 1u);
}

@compute @workgroup_size(64)
fn transform(@builtin(workgroup_id) wid: vec3<u32>,
             @builtin(local_invocation_id) lid: vec3<u32>) {
  let window = wid.x;
  if (window >= params.windowCount) {
    return;
  }
  let size = params.windowSize;
  let offset = window * size;
  let lane = lid.x;
  let sign = twiddleSign();

  // bit-reversal permutation, each pair swapped by the owner of its lower index
  for (var i = lane; i < size; i += LANES) {
    let j = reverseTable[i];
    if (j > i) {
      let a = offset + i;
      let b = offset + j;
      let re = dataReal[a];
      let im = dataImag[a];
      dataReal[a] = dataReal[b];
      dataImag[a] = dataImag[b];
      dataReal[b] = re;
      dataImag[b] = im;
    }
  }

  workgroupBarrier();

  var section = 2u;
  while (section <= size) {
    let half = section >> 1u;
    let stride = size / section;
    for (var block = 0u; block < size; block += section) {
      for (var t = lane; t < half; t += LANES) {
        let even = offset + block + t;
        let odd = even + half;
        let wRe = trigTable[2u * t * stride];
        let wIm = sign * trigTable[2u * t * stride + 1u];

        let eRe = dataReal[even];
        let eIm = dataImag[even];
        let oRe = dataReal[odd];
        let oIm = dataImag[odd];
        let pRe = oRe * wRe - oIm * wIm;
        let pIm = oRe * wIm + oIm * wRe;

        dataReal[even] = eRe + pRe;
        dataImag[even] = eIm + pIm;
        dataReal[odd] = eRe - pRe;
        dataImag[odd] = eIm - pIm;
      }
      workgroupBarrier();
    }
    workgroupBarrier();
    section <<= 1u;
  }

  if (params.inverse == 1u) {
    let scale = f32(size);
    for (var i = lane; i < size; i += LANES) {
      dataReal[offset + i] /= scale;
      dataImag[offset + i] /= scale;
    }
  }
}
