// Embedding-table gradient: scatter-add of the output gradient rows into
// the rows of the table selected by the token ids. Several tokens can carry
// the same id, so the f32 accumulation goes through a compare-exchange loop
// on the bit pattern (WGSL has no float atomics). A first pass zeroes the
// gradient table.

override WORKGROUP_SIZE: u32 = 256u;

struct EmbedGradParams {
    num_tokens: u32,
    hidden_size: u32,
    vocab_size: u32,
    transpose: u32,      // 1: table stored [hidden, vocab]
    index_offset: u32,   // first token id used from `token_ids`
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
}

@group(0) @binding(0) var<uniform> p: EmbedGradParams;
@group(0) @binding(1) var<storage, read> token_ids: array<u32>;
@group(0) @binding(2) var<storage, read> d_out: array<f32>;
@group(0) @binding(3) var<storage, read_write> d_table: array<atomic<u32>>;

fn add_f32_bits(slot: u32, delta: f32) {
    var expected = atomicLoad(&d_table[slot]);
    loop {
        let next = bitcast<u32>(bitcast<f32>(expected) + delta);
        let r = atomicCompareExchangeWeak(&d_table[slot], expected, next);
        if (r.exchanged) {
            break;
        }
        expected = r.old_value;
    }
}

@compute @workgroup_size(WORKGROUP_SIZE, 1, 1)
fn clear_table(@builtin(global_invocation_id) gid: vec3<u32>) {
    if (gid.x < arrayLength(&d_table)) {
        atomicStore(&d_table[gid.x], 0u);
    }
}

@compute @workgroup_size(WORKGROUP_SIZE, 1, 1)
fn scatter_grad(@builtin(global_invocation_id) gid: vec3<u32>) {
    let e = gid.x;
    if (e >= p.num_tokens * p.hidden_size) {
        return;
    }
    let tok = e / p.hidden_size;
    let col = e % p.hidden_size;
    let id = token_ids[tok + p.index_offset];
    if (id >= p.vocab_size) {
        return;
    }
    var dst: u32;
    if (p.transpose == 1u) {
        dst = col * p.vocab_size + id;
    } else {
        dst = id * p.hidden_size + col;
    }
    add_f32_bits(dst, d_out[e]);
}
