//! A loaded kernel's bindings, given by (group, binding) as wgpu users
//! give them, turned into the launch's arguments in parameter order: a
//! storage binding becomes its buffer, seen as the shader's elements; a
//! uniform binding's bytes become one scalar argument per scalar the
//! front-end flattened it to, each read at its WGSL offset.

use super::{describe::ShaderElement, Loaded};
use crate::error::{Error, Result};
use crate::kernel::{ParamKind, ScalarKind};
use crate::launch::{Arg, BufArg};
use ld_compiler::front::ParamSource;
use std::any::TypeId;
use std::collections::BTreeMap;

/// What is bound at each (group, binding) of a loaded shader's launch.
#[derive(Default)]
pub struct Bindings<'a> {
    bound: BTreeMap<(u32, u32), Bound<'a>>,
}

enum Bound<'a> {
    Buffer(BufArg<'a>),
    Uniform(&'a [u8]),
}

impl<'a> Bindings<'a> {
    /// No bindings yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Binds a buffer (`&buf`, or `&mut buf` for a variable the shader may
    /// write) at `@group(group) @binding(binding)`. Its elements need not
    /// be the shader's: its bytes are what the shader sees, and their
    /// number must be a whole number of the shader's elements (for an
    /// array), or at least the variable's size (for one value).
    pub fn buffer(mut self, group: u32, binding: u32, buffer: impl Into<Arg<'a>>) -> Self {
        if let Arg::Buffer(b) = buffer.into() {
            self.bound.insert((group, binding), Bound::Buffer(b));
        }
        self
    }

    /// Binds a uniform buffer's bytes, laid out as WGSL lays out its type
    /// (`bytemuck::bytes_of(&params)` of a `#[repr(C)]` struct that
    /// follows WGSL's alignment rules).
    pub fn uniform(mut self, group: u32, binding: u32, bytes: &'a [u8]) -> Self {
        self.bound.insert((group, binding), Bound::Uniform(bytes));
        self
    }
}

/// The launch arguments of `loaded` from `bindings`.
pub(super) fn args<'a>(loaded: &Loaded, mut bindings: Bindings<'a>) -> Result<Vec<Arg<'a>>> {
    let info = &loaded.info;
    let err = |(group, binding): (u32, u32), problem: String| Error::Binding {
        kernel: info.name,
        group,
        binding,
        variable: loaded.declared.get(&(group, binding)).cloned().unwrap_or_default(),
        problem,
    };
    if let Some(&gb) = bindings.bound.keys().find(|gb| !loaded.declared.contains_key(gb)) {
        let have: Vec<String> = loaded.declared.iter().map(|((g, b), n)| format!("{g}:{b} `{n}`")).collect();
        return Err(err(gb, format!("the shader declares nothing there (it declares: {})", have.join(", "))));
    }
    let mut args = Vec::with_capacity(info.params.len());
    for (p, source) in info.params.iter().zip(&loaded.sources) {
        let arg = match (*source, &p.kind) {
            (ParamSource::Buffer { group, binding, one }, ParamKind::Storage { elem, .. } | ParamKind::Atomic { elem }) => {
                let gb = (group, binding);
                let writes = matches!(p.kind, ParamKind::Storage { writable: true, .. } | ParamKind::Atomic { .. });
                match bindings.bound.remove(&gb) {
                    Some(Bound::Buffer(b)) if writes && !b.exclusive => {
                        return Err(err(gb, "the shader writes it (`read_write`), and the buffer is bound as `&buf`: bind it as `&mut buf`".into()))
                    }
                    Some(Bound::Buffer(b)) => Arg::Buffer(as_variable(b, elem.words, elem.name, one).map_err(|p| err(gb, p))?),
                    Some(Bound::Uniform(_)) => {
                        return Err(err(gb, "the shader declares a storage buffer here, not a uniform: bind it with `Bindings::buffer`".into()))
                    }
                    None => return Err(err(gb, format!("entry point `{}` uses it: bind a buffer there", info.name))),
                }
            }
            (ParamSource::Uniform { group, binding, offset }, ParamKind::Uniform { scalar }) => {
                let gb = (group, binding);
                match bindings.bound.get(&gb) {
                    Some(Bound::Uniform(bytes)) => uniform_scalar(bytes, offset, *scalar).map_err(|p| err(gb, p))?,
                    Some(Bound::Buffer(_)) => return Err(err(gb, "the shader declares a uniform here: bind its bytes with `Bindings::uniform`".into())),
                    None => return Err(err(gb, format!("entry point `{}` reads it: bind its bytes with `Bindings::uniform`", info.name))),
                }
            }
            _ => unreachable!("the front-end pairs each parameter with its source"),
        };
        args.push(arg);
    }
    Ok(args)
}

/// A buffer seen as the shader's variable: elements of `words` words
/// each, as many as it holds whole, or (`one`) one value, its first bytes
/// (a binding may be larger than its variable).
fn as_variable<'a>(mut b: BufArg<'a>, words: u32, name: &'static str, one: bool) -> std::result::Result<BufArg<'a>, String> {
    let total = b.len as u64 * b.elem_words as u64;
    let each = words.max(1) as u64;
    b.len = match one {
        true if total < each => return Err(format!("the buffer holds {} bytes, less than one `{name}` ({} bytes)", total * 4, each * 4)),
        true => 1,
        false if total == 0 => return Err("the buffer is empty; a binding needs at least one element (wgpu cannot bind zero bytes)".into()),
        false if !total.is_multiple_of(each) => {
            return Err(format!("the buffer holds {} bytes, not a whole number of `{name}` ({} bytes each)", total * 4, each * 4))
        }
        false => (total / each) as usize,
    };
    b.elem_words = words;
    b.elem = TypeId::of::<ShaderElement>();
    b.elem_name = name;
    Ok(b)
}

/// The scalar at byte `offset` of a uniform's bytes.
fn uniform_scalar(bytes: &[u8], offset: u32, scalar: ScalarKind) -> std::result::Result<Arg<'static>, String> {
    let at = offset as usize;
    let Some(word) = bytes.get(at..at + 4) else {
        return Err(format!("{} bytes are bound, but the shader reads a `{scalar}` at byte {at}", bytes.len()));
    };
    let w = u32::from_le_bytes(word.try_into().expect("four bytes"));
    Ok(match scalar {
        ScalarKind::U32 => Arg::U32(w),
        ScalarKind::I32 => Arg::I32(w as i32),
        ScalarKind::F32 => Arg::F32(f32::from_bits(w)),
    })
}
