//! A launch file checked against the shaders it names: naga reads and
//! validates each shader once, then every dispatch's entry point,
//! bindings, buffer sizes, overrides and uniform fields are matched to the
//! shader's declarations.

use crate::file::{parse_binding, Contents, Dispatch, LaunchFile};
use crate::LaunchError;
pub use ld_compiler::front::Shader;
use std::collections::BTreeMap;
use std::path::Path;

/// One binding of a resolved dispatch.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Binding {
    /// `@group`.
    pub group: u32,
    /// `@binding`.
    pub binding: u32,
    /// The shader's variable.
    pub variable: String,
    /// The launch file's buffer bound to it.
    pub buffer: String,
    /// Whether the shader may write it (`var<storage, read_write>`).
    pub writable: bool,
    /// Whether it is a uniform buffer.
    pub uniform: bool,
    /// The least size the variable needs, in bytes (for a runtime-sized
    /// array, one element).
    pub min_bytes: u64,
    /// The variable's type in the shader's module.
    pub ty: naga::Handle<naga::Type>,
}

/// A dispatch matched to its shader.
#[derive(Debug)]
#[non_exhaustive]
pub struct ResolvedDispatch {
    /// Index into [`Resolved::shaders`].
    pub shader: usize,
    /// The entry point's index in the module.
    pub entry: usize,
    /// Workgroups along x, y and z.
    pub grid: [u32; 3],
    /// The bindings the entry point uses.
    pub bindings: Vec<Binding>,
    /// The overrides set, by name.
    pub overrides: BTreeMap<String, f64>,
}

/// A launch file with every shader loaded and every dispatch matched.
#[derive(Debug)]
#[non_exhaustive]
pub struct Resolved {
    /// Each shader once, in the order dispatches first name them.
    pub shaders: Vec<Shader>,
    /// The dispatches, in order.
    pub dispatches: Vec<ResolvedDispatch>,
}

impl LaunchFile {
    /// Loads the shaders the dispatches name (beside the launch file) and
    /// matches every dispatch to its shader's declarations.
    pub fn resolve(&self) -> Result<Resolved, LaunchError> {
        let dir = self.path.parent().unwrap_or(Path::new("."));
        let mut shaders: Vec<Shader> = Vec::new();
        let mut dispatches = Vec::new();
        for (i, d) in self.dispatches.iter().enumerate() {
            let path = dir.join(&d.shader);
            let s = match shaders.iter().position(|s| s.path == path) {
                Some(s) => s,
                None => {
                    shaders.push(Shader::load(&path)?);
                    shaders.len() - 1
                }
            };
            dispatches.push(self.resolve_dispatch(i, d, s, &shaders[s])?);
        }
        if let Some(case) = &self.case {
            for (j, r) in case.races.iter().enumerate() {
                if !shaders.iter().any(|s| s.declares(&r.variable)) {
                    return Err(self.field_error(format!("case.race[{j}].variable"), format!("no shader of the launch declares a global `{}`", r.variable)));
                }
            }
        }
        Ok(Resolved { shaders, dispatches })
    }

    fn resolve_dispatch(&self, i: usize, d: &Dispatch, s: usize, shader: &Shader) -> Result<ResolvedDispatch, LaunchError> {
        let module = &shader.module;
        let field = |f: &str| format!("dispatch[{i}].{f}");
        let Some(entry) = module.entry_points.iter().position(|e| e.name == d.entry && e.stage == naga::ShaderStage::Compute) else {
            let names: Vec<&str> = module.entry_points.iter().filter(|e| e.stage == naga::ShaderStage::Compute).map(|e| e.name.as_str()).collect();
            return Err(
                self.field_error(field("entry"), format!("{} has no compute entry point `{}` (it has: {})", shader.path.display(), d.entry, names.join(", ")))
            );
        };
        self.check_overrides(i, d, shader)?;
        // What ld cannot check (a texture among the bindings, say) is said
        // first, at its line: no binding would make the shader checkable.
        shader.kernel(&d.entry, &d.overrides)?;
        let uses = shader.info.get_entry_point(entry);
        let declared = shader.bindings();
        for key in d.bindings.keys() {
            let gb = parse_binding(key).expect("checked when loaded");
            if !declared.contains_key(&gb) {
                return Err(self.field_error(
                    field(&format!("bindings.\"{key}\"")),
                    format!("{} declares no `@group({}) @binding({})`", shader.path.display(), gb.0, gb.1),
                ));
            }
        }
        let mut bindings = Vec::new();
        for (&(group, binding), &h) in &declared {
            if uses[h].is_empty() {
                continue;
            }
            let g = &module.global_variables[h];
            let variable = g.name.clone().unwrap_or_default();
            let key = format!("{group}:{binding}");
            let (writable, uniform) = match g.space {
                naga::AddressSpace::Storage { access } => (access.contains(naga::StorageAccess::STORE), false),
                naga::AddressSpace::Uniform => (false, true),
                _ => {
                    let at = module.global_variables.get_span(h).location(&shader.source);
                    return Err(LaunchError::Shader {
                        message: format!(
                            "{}:{}:{}: `{variable}` is not a buffer: ld checks storage and uniform buffers, not textures or samplers",
                            shader.path.display(),
                            at.line_number,
                            at.line_position
                        ),
                    });
                }
            };
            let Some(buffer) = d.bindings.get(&key) else {
                return Err(self.field_error(
                    field("bindings"),
                    format!("entry point `{}` uses `{variable}` (@group({group}) @binding({binding})) but nothing is bound to \"{key}\"", d.entry),
                ));
            };
            let min_bytes = min_bytes(module, &shader.layouter, g.ty);
            let b = Binding { group, binding, variable, buffer: buffer.clone(), writable, uniform, min_bytes, ty: g.ty };
            self.check_buffer(&field(&format!("bindings.\"{key}\"")), &b, module, g.ty)?;
            bindings.push(b);
        }
        Ok(ResolvedDispatch { shader: s, entry, grid: LaunchFile::grid(d), bindings, overrides: d.overrides.clone() })
    }

    fn check_overrides(&self, i: usize, d: &Dispatch, shader: &Shader) -> Result<(), LaunchError> {
        let module = &shader.module;
        let known = shader.overrides();
        for name in d.overrides.keys() {
            if !known.contains(&name.as_str()) {
                return Err(self.field_error(
                    format!("dispatch[{i}].overrides.{name}"),
                    format!("{} has no override `{name}` (it has: {})", shader.path.display(), known.join(", ")),
                ));
            }
        }
        for (_, o) in module.overrides.iter() {
            let name = o.name.as_deref().unwrap_or("?");
            if o.init.is_none() && !d.overrides.contains_key(name) {
                return Err(
                    self.field_error(format!("dispatch[{i}].overrides"), format!("override `{name}` has no default in {}: set it", shader.path.display()))
                );
            }
        }
        Ok(())
    }

    fn check_buffer(&self, field: &str, b: &Binding, module: &naga::Module, ty: naga::Handle<naga::Type>) -> Result<(), LaunchError> {
        let spec = &self.buffers[&b.buffer];
        if let Some(Contents::Uniform(fields)) = spec.contents() {
            let naga::TypeInner::Struct { members, .. } = &module.types[ty].inner else {
                return Err(self.field_error(format!("buffers.{}.uniform", b.buffer), format!("`{}` is not a struct: give its bytes another way", b.variable)));
            };
            for name in fields.keys() {
                if !members.iter().any(|m| m.name.as_deref() == Some(name.as_str())) {
                    let have: Vec<&str> = members.iter().filter_map(|m| m.name.as_deref()).collect();
                    return Err(self.field_error(
                        format!("buffers.{}.uniform.{name}", b.buffer),
                        format!("`{}` has no field `{name}` (it has: {})", b.variable, have.join(", ")),
                    ));
                }
            }
            return Ok(());
        }
        let bytes = match spec.contents() {
            Some(Contents::File(path)) => self.file_bytes(&b.buffer, path)?.len() as u64,
            _ => spec.bytes().expect("not a uniform"),
        };
        if bytes < b.min_bytes {
            return Err(self.field_error(field, format!("buffer `{}` holds {bytes} bytes, but `{}` needs at least {}", b.buffer, b.variable, b.min_bytes)));
        }
        Ok(())
    }
}

/// The least size of a buffer bound to a variable of type `ty`: its
/// layout's size, or for a runtime-sized array (alone or as a struct's last
/// member) the fixed part and one element.
fn min_bytes(module: &naga::Module, layouter: &naga::proc::Layouter, ty: naga::Handle<naga::Type>) -> u64 {
    match &module.types[ty].inner {
        naga::TypeInner::Array { size: naga::ArraySize::Dynamic, stride, .. } => *stride as u64,
        naga::TypeInner::Struct { members, .. } => match members.last() {
            Some(last) if matches!(module.types[last.ty].inner, naga::TypeInner::Array { size: naga::ArraySize::Dynamic, .. }) => {
                last.offset as u64 + min_bytes(module, layouter, last.ty)
            }
            _ => layouter[ty].size as u64,
        },
        _ => layouter[ty].size as u64,
    }
}

impl Resolved {
    /// The type of buffer `name`'s words, from the first variable it is
    /// bound to: `f32` or `i32` where every scalar in the variable's type
    /// is one, else `u32`.
    pub fn word_type(&self, name: &str) -> crate::ScalarType {
        let Some((d, b)) = self.dispatches.iter().find_map(|d| d.bindings.iter().find(|b| b.buffer == name).map(|b| (d, b))) else {
            return crate::ScalarType::U32;
        };
        let module = &self.shaders[d.shader].module;
        let mut kinds = Vec::new();
        scalar_kinds(module, b.ty, &mut kinds);
        match kinds.first() {
            Some(&k) if kinds.iter().all(|&x| x == k) && k == naga::ScalarKind::Float => crate::ScalarType::F32,
            Some(&k) if kinds.iter().all(|&x| x == k) && k == naga::ScalarKind::Sint => crate::ScalarType::I32,
            _ => crate::ScalarType::U32,
        }
    }
}

/// Every scalar kind in `ty`.
fn scalar_kinds(module: &naga::Module, ty: naga::Handle<naga::Type>, out: &mut Vec<naga::ScalarKind>) {
    use naga::TypeInner as T;
    match &module.types[ty].inner {
        T::Scalar(s) | T::Atomic(s) | T::Vector { scalar: s, .. } | T::Matrix { scalar: s, .. } => out.push(s.kind),
        T::Array { base, .. } => scalar_kinds(module, *base, out),
        T::Struct { members, .. } => members.iter().for_each(|m| scalar_kinds(module, m.ty, out)),
        _ => {}
    }
}
