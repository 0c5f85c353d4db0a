// Half of a preconditioned-CG iteration on the GPU, as separate passes over
// shared buffers: q = A p (CSR SpMV, one row per invocation), the step
// length alpha = (r.z) / (p.q) computed by a single invocation into a small
// "scalar mailbox" buffer, then x += alpha p and r += (-alpha) q with an
// AXPY kernel that takes its coefficient from the mailbox by index.

struct SpmvParams {
    n_rows: u32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
}

struct ScalarSlots {
    p_ap: u32,          // inputs: slots of p.Ap, new r.z, old r.z
    rz_new: u32,
    rz_old: u32,
    alpha: u32,         // outputs: slots of alpha, -alpha, beta
    neg_alpha: u32,
    beta: u32,
    _pad0: u32,
    _pad1: u32,
}

struct AxpyParams {
    n: u32,
    coeff_slot: u32,
    _pad0: u32,
    _pad1: u32,
}

@group(0) @binding(0) var<uniform> sp: SpmvParams;
@group(0) @binding(1) var<storage, read> row_ptr: array<u32>;
@group(0) @binding(2) var<storage, read> col_idx: array<u32>;
@group(0) @binding(3) var<storage, read> vals: array<f32>;
@group(0) @binding(4) var<storage, read> vec_in: array<f32>;
@group(0) @binding(5) var<storage, read_write> vec_out: array<f32>;

@group(1) @binding(0) var<uniform> slots: ScalarSlots;
@group(1) @binding(1) var<storage, read_write> mailbox: array<f32>;

@group(2) @binding(0) var<uniform> ap: AxpyParams;
@group(2) @binding(1) var<storage, read> ax: array<f32>;
@group(2) @binding(2) var<storage, read_write> ay: array<f32>;
@group(2) @binding(3) var<storage, read> coeffs: array<f32>;

@compute @workgroup_size(256)
fn csr_spmv(@builtin(global_invocation_id) gid: vec3<u32>) {
    let row = gid.x;
    if (row >= sp.n_rows) {
        return;
    }
    var acc = 0.0;
    for (var k = row_ptr[row]; k < row_ptr[row + 1u]; k++) {
        acc += vals[k] * vec_in[col_idx[k]];
    }
    vec_out[row] = acc;
}

@compute @workgroup_size(1)
fn update_scalars() {
    let pq = mailbox[slots.p_ap];
    let rz1 = mailbox[slots.rz_new];
    let rz0 = mailbox[slots.rz_old];
    var a = 0.0;
    var b = 0.0;
    if (pq != 0.0) { a = rz0 / pq; }
    if (rz0 != 0.0) { b = rz1 / rz0; }
    mailbox[slots.alpha] = a;
    mailbox[slots.neg_alpha] = -a;
    mailbox[slots.beta] = b;
}

@compute @workgroup_size(256)
fn axpy_from_mailbox(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i >= ap.n || i >= arrayLength(&ay)) {
        return;
    }
    ay[i] = ay[i] + coeffs[ap.coeff_slot] * ax[i];
}
