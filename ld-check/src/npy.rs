//! NumPy's `.npy` files, for buffers: read as their data's bytes (4-byte
//! floats and integers, or bytes), written as the words a buffer holds,
//! typed by the shader's element type (`f32`, `i32`, else `u32`).

use crate::file::ScalarType;
use npyz::WriterBuilder;

/// The data of an `.npy` file, as little-endian bytes.
pub fn read(data: &[u8]) -> Result<Vec<u8>, String> {
    let npy = npyz::NpyFile::new(data).map_err(|e| format!("not a .npy file: {e}"))?;
    let descr = match npy.dtype() {
        npyz::DType::Plain(t) => t.to_string(),
        other => return Err(format!("its dtype {other:?} is a record or array type: save a plain array of f32, i32, u32 or u8")),
    };
    let bytes = match descr.as_str() {
        "<f4" => npy.into_vec::<f32>().map(|v| bytemuck::cast_slice(&v).to_vec()),
        "<i4" => npy.into_vec::<i32>().map(|v| bytemuck::cast_slice(&v).to_vec()),
        "<u4" => npy.into_vec::<u32>().map(|v| bytemuck::cast_slice(&v).to_vec()),
        "|u1" | "<u1" => npy.into_vec::<u8>(),
        _ => return Err(format!("its dtype is `{descr}`: ld buffers hold 4-byte words; save it as float32, int32, uint32 or uint8")),
    };
    bytes.map_err(|e| format!("cannot read its data: {e}"))
}

/// `bytes` as an `.npy` file of `ty` words (a trailing partial word is
/// dropped: buffers are whole words).
pub fn write(bytes: &[u8], ty: ScalarType) -> std::io::Result<Vec<u8>> {
    let words = bytes.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]));
    let n = (bytes.len() / 4) as u64;
    match ty {
        ScalarType::F32 => array(n, words.map(f32::from_bits)),
        ScalarType::I32 => array(n, words.map(|x| x as i32)),
        ScalarType::U32 => array(n, words),
    }
}

/// A one-dimensional `.npy` array of `n` values.
fn array<T: npyz::AutoSerialize>(n: u64, values: impl Iterator<Item = T>) -> std::io::Result<Vec<u8>> {
    let mut out = Vec::new();
    let mut w = npyz::WriteOptions::new().default_dtype().shape(&[n]).writer(&mut out).begin_nd()?;
    w.extend(values)?;
    w.finish()?;
    Ok(out)
}
