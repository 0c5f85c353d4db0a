//! A buffer's bytes before the first dispatch, from what the launch file
//! says it holds. A uniform struct's fields are laid out by the shader's
//! own layout (naga's: member offsets, `vec3` aligned to 16, array and
//! matrix strides), so the file names fields, never offsets.

use crate::file::{Contents, LaunchFile, ScalarType};
use crate::shader::Resolved;
use crate::LaunchError;
use rand::rngs::ChaCha8Rng;
use rand::{RngExt, SeedableRng};
use std::collections::BTreeMap;

impl Resolved {
    /// Every buffer's bytes, by name: zeros, a fill value, a sequence,
    /// seeded random words (ChaCha8, so a seed gives the same words on
    /// every machine), the words given, or a uniform struct's fields laid
    /// out as the shader that binds it declares them.
    pub fn buffer_bytes(&self, file: &LaunchFile) -> Result<BTreeMap<String, Vec<u8>>, LaunchError> {
        let mut out = BTreeMap::new();
        for (name, spec) in &file.buffers {
            let field = format!("buffers.{name}");
            let bytes = match spec.contents().expect("checked when loaded") {
                Contents::Zeros(n) => vec![0; n as usize],
                Contents::Fill(f) => words(file, &field, f.ty, (0..f.count).map(|_| f.value))?,
                Contents::Iota(i) => words(file, &field, i.ty, (0..i.count).map(|k| i.start + k as f64))?,
                Contents::Random(r) => random(file, &field, r)?,
                Contents::Values(v) => words(file, &format!("{field}.values.data"), v.ty, v.data.iter().copied())?,
                Contents::Uniform(fields) => self.uniform(file, name, fields)?,
                Contents::File(path) => file.file_bytes(name, path)?,
            };
            out.insert(name.clone(), bytes);
        }
        Ok(out)
    }

    /// A uniform's bytes: the struct of the first binding it is bound to.
    fn uniform(&self, file: &LaunchFile, name: &str, fields: &toml::Table) -> Result<Vec<u8>, LaunchError> {
        let field = format!("buffers.{name}.uniform");
        let Some((d, b)) = self.dispatches.iter().find_map(|d| d.bindings.iter().find(|b| b.buffer == name).map(|b| (d, b))) else {
            return Err(file.field_error(field, "no dispatch binds this buffer, so no shader says its layout"));
        };
        let shader = &self.shaders[d.shader];
        let module = &shader.module;
        let mut bytes = vec![0; shader.layouter[b.ty].size as usize];
        let value = toml::Value::Table(fields.clone());
        Layout { file, module }.put(&mut bytes, 0, b.ty, &value, &field)?;
        Ok(bytes)
    }
}

impl LaunchFile {
    /// The bytes of buffer `name`'s file (beside the launch file): an
    /// `.npy` file's data, any other file as it is.
    pub(crate) fn file_bytes(&self, name: &str, path: &std::path::Path) -> Result<Vec<u8>, LaunchError> {
        let full = self.path.parent().unwrap_or(std::path::Path::new(".")).join(path);
        let data = std::fs::read(&full).map_err(|source| LaunchError::Read { path: full.clone(), source })?;
        if full.extension().is_some_and(|e| e == "npy") {
            return crate::npy::read(&data).map_err(|m| self.field_error(format!("buffers.{name}.file"), format!("{}: {m}", full.display())));
        }
        Ok(data)
    }
}

/// Writes TOML values into bytes by a shader's types.
struct Layout<'a> {
    file: &'a LaunchFile,
    module: &'a naga::Module,
}

impl Layout<'_> {
    fn put(&self, out: &mut [u8], at: usize, ty: naga::Handle<naga::Type>, v: &toml::Value, field: &str) -> Result<(), LaunchError> {
        use naga::TypeInner as T;
        match &self.module.types[ty].inner {
            T::Scalar(s) | T::Atomic(s) => self.scalar(out, at, *s, v, field),
            T::Vector { size, scalar } => {
                let items = self.array(v, *size as usize, field)?;
                items.iter().enumerate().try_for_each(|(i, x)| self.scalar(out, at + 4 * i, *scalar, x, &format!("{field}[{i}]")))
            }
            T::Matrix { columns, rows, scalar } => {
                // A column is a vector: vec3 and vec4 columns are 16 bytes apart.
                let stride = if *rows as usize == 2 { 8 } else { 16 };
                let cols = self.array(v, *columns as usize, field)?;
                for (c, col) in cols.iter().enumerate() {
                    let items = self.array(col, *rows as usize, &format!("{field}[{c}]"))?;
                    for (r, x) in items.iter().enumerate() {
                        self.scalar(out, at + c * stride + 4 * r, *scalar, x, &format!("{field}[{c}][{r}]"))?;
                    }
                }
                Ok(())
            }
            T::Array { base, size: naga::ArraySize::Constant(n), stride } => {
                let items = self.array(v, n.get() as usize, field)?;
                items.iter().enumerate().try_for_each(|(i, x)| self.put(out, at + i * *stride as usize, *base, x, &format!("{field}[{i}]")))
            }
            T::Struct { members, .. } => {
                let Some(table) = v.as_table() else {
                    return Err(self.file.field_error(field, "a struct is given as a table of its fields"));
                };
                let names: Vec<&str> = members.iter().filter_map(|m| m.name.as_deref()).collect();
                if let Some(extra) = table.keys().find(|k| !names.contains(&k.as_str())) {
                    return Err(self.file.field_error(format!("{field}.{extra}"), format!("the struct has no field `{extra}` (it has: {})", names.join(", "))));
                }
                for m in members {
                    let name = m.name.as_deref().unwrap_or("?");
                    let Some(x) = table.get(name) else {
                        return Err(self.file.field_error(format!("{field}.{name}"), "missing: give every field of the struct, its padding included"));
                    };
                    self.put(out, at + m.offset as usize, m.ty, x, &format!("{field}.{name}"))?;
                }
                Ok(())
            }
            _ => {
                Err(self.file.field_error(field, "a value of this type cannot be given in a launch file: a struct, array, vector, matrix or 32-bit scalar can"))
            }
        }
    }

    fn array<'v>(&self, v: &'v toml::Value, n: usize, field: &str) -> Result<&'v Vec<toml::Value>, LaunchError> {
        match v.as_array() {
            Some(a) if a.len() == n => Ok(a),
            Some(a) => Err(self.file.field_error(field, format!("{n} values expected, {} given", a.len()))),
            None => Err(self.file.field_error(field, format!("an array of {n} values expected"))),
        }
    }

    fn scalar(&self, out: &mut [u8], at: usize, s: naga::Scalar, v: &toml::Value, field: &str) -> Result<(), LaunchError> {
        let ty = match (s.kind, s.width) {
            (naga::ScalarKind::Uint, 4) => ScalarType::U32,
            (naga::ScalarKind::Sint, 4) => ScalarType::I32,
            (naga::ScalarKind::Float, 4) => ScalarType::F32,
            _ => return Err(self.file.field_error(field, "only 32-bit scalars can be given")),
        };
        let x = match v {
            toml::Value::Integer(i) => *i as f64,
            toml::Value::Float(f) => *f,
            _ => return Err(self.file.field_error(field, "a number expected")),
        };
        out[at..at + 4].copy_from_slice(&word(self.file, field, ty, x)?);
        Ok(())
    }
}

/// One value as a word of `ty`: an integer type takes whole numbers in its
/// range only (a value that would be cut is an error, not a different
/// input).
fn word(file: &LaunchFile, field: &str, ty: ScalarType, x: f64) -> Result<[u8; 4], LaunchError> {
    let whole = x.fract() == 0.0;
    match ty {
        ScalarType::F32 => Ok((x as f32).to_le_bytes()),
        ScalarType::U32 if whole && (0.0..=u32::MAX as f64).contains(&x) => Ok((x as u32).to_le_bytes()),
        ScalarType::I32 if whole && (i32::MIN as f64..=i32::MAX as f64).contains(&x) => Ok((x as i32).to_le_bytes()),
        _ => Err(file.field_error(
            field,
            format!(
                "{x} is not a {}",
                match ty {
                    ScalarType::U32 => "u32",
                    ScalarType::I32 => "i32",
                    ScalarType::F32 => "f32",
                }
            ),
        )),
    }
}

fn words(file: &LaunchFile, field: &str, ty: ScalarType, values: impl Iterator<Item = f64>) -> Result<Vec<u8>, LaunchError> {
    let mut out = Vec::new();
    for (i, x) in values.enumerate() {
        out.extend_from_slice(&word(file, &format!("{field}[{i}]"), ty, x)?);
    }
    Ok(out)
}

/// Seeded words: floats uniform in `[min, max)`, integers in `min..=max`.
fn random(file: &LaunchFile, field: &str, r: &crate::file::Random) -> Result<Vec<u8>, LaunchError> {
    let mut rng = ChaCha8Rng::seed_from_u64(r.seed);
    let bad = |what: &str| file.field_error(format!("{field}.random"), what.to_string());
    let values: Vec<f64> = match r.ty {
        ScalarType::F32 if r.min < r.max => (0..r.count).map(|_| rng.random_range(r.min as f32..r.max as f32) as f64).collect(),
        ScalarType::F32 => return Err(bad("`min` must be below `max`")),
        _ if r.min.fract() != 0.0 || r.max.fract() != 0.0 || r.min > r.max => return Err(bad("an integer type takes whole `min` <= `max`")),
        _ => (0..r.count).map(|_| rng.random_range(r.min as i64..=r.max as i64) as f64).collect(),
    };
    words(file, &format!("{field}.random"), r.ty, values.into_iter())
}
