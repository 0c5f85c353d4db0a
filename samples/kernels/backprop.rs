//! The Rodinia back-propagation kernels (see `samples/backprop.rs`).

#[ld::kernels]
pub mod backprop {
    const WIDTH: u32 = 16;
    const HEIGHT: u32 = 16;
    const ETA: f32 = 0.3;
    const MOMENTUM: f32 = 0.3;

    /// `bpnn_layerforward_CUDA`: workgroup `by` multiplies input units
    /// `16 by + 1 ..= 16 by + 16` by their rows of the input->hidden weights
    /// (a 16x16 tile in shared memory), tree-reduces every column over the
    /// tile's rows and writes the 16 column sums to `partial[by * hid ..]`.
    /// As in Rodinia it also stores the reduced tile back over its weights
    /// (`input_hidden_cuda[index] = weight_matrix[ty][tx]`), a dead store:
    /// the host uploads the weights again before `adjust_weights`.
    ///
    /// `racy != 0`: that write-back leaves out the block term
    /// `(hid + 1) * HEIGHT * by` of `index`, so every workgroup stores its
    /// reduced tile over the first tile's weights (write-write, storage).
    #[kernel(workgroup_size = (16, 16))]
    pub fn layerforward(input: &[f32], weights: &mut [f32], partial: &mut [f32], hid: u32, racy: u32) {
        let input_node = shared::<[f32; 16]>();
        let weight_matrix = shared::<[f32; 256]>();
        let by = workgroup_id().y;
        let tx = local_id().x;
        let ty = local_id().y;
        let index = (hid + 1) * HEIGHT * by + (hid + 1) * ty + tx + 1 + (hid + 1);
        let index_in = HEIGHT * by + ty + 1;
        if tx == 0 {
            input_node[ty] = input[index_in];
        }
        barrier();
        weight_matrix[ty * WIDTH + tx] = weights[index];
        barrier();
        weight_matrix[ty * WIDTH + tx] = weight_matrix[ty * WIDTH + tx] * input_node[ty];
        barrier();
        for i in 1..5u32 {
            let power_two = 1u32 << i;
            if ty % power_two == 0 {
                weight_matrix[ty * WIDTH + tx] = weight_matrix[ty * WIDTH + tx] + weight_matrix[(ty + power_two / 2) * WIDTH + tx];
            }
            barrier();
        }
        let wb = if racy != 0 { (hid + 1) * ty + tx + 1 + (hid + 1) } else { index };
        weights[wb] = weight_matrix[ty * WIDTH + tx];
        barrier();
        if tx == 0 {
            partial[by * hid + ty] = weight_matrix[tx * WIDTH + ty];
        }
    }

    /// `bpnn_adjust_weights_cuda`: every invocation updates one weight of
    /// rows `1..=in` with momentum; then invocations `ty == 0` of workgroup
    /// 0 update the bias row 0.
    #[kernel(workgroup_size = (16, 16))]
    pub fn adjust_weights(delta: &[f32], ly: &[f32], w: &mut [f32], oldw: &mut [f32], hid: u32) {
        let by = workgroup_id().y;
        let tx = local_id().x;
        let ty = local_id().y;
        let index = (hid + 1) * HEIGHT * by + (hid + 1) * ty + tx + 1 + (hid + 1);
        let index_y = HEIGHT * by + ty + 1;
        let index_x = tx + 1;
        w[index] += (ETA * delta[index_x] * ly[index_y]) + (MOMENTUM * oldw[index]);
        oldw[index] = (ETA * delta[index_x] * ly[index_y]) + (MOMENTUM * oldw[index]);
        storage_barrier();
        if ty == 0 && by == 0 {
            w[index_x] += (ETA * delta[index_x]) + (MOMENTUM * oldw[index_x]);
            oldw[index_x] = (ETA * delta[index_x]) + (MOMENTUM * oldw[index_x]);
        }
    }
}

pub use backprop::{adjust_weights, layerforward};
