//! A launch file checked against the shaders it names: naga reads and
//! validates each shader once, then every dispatch's entry point,
//! bindings, buffer sizes, overrides and uniform fields are matched to the
//! shader's declarations.

use crate::file::{parse_binding, Contents, Dispatch, LaunchFile};
use crate::LaunchError;
use naga::valid::{Capabilities, ModuleInfo, ValidationFlags, Validator};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// A shader module, read and validated by naga.
#[derive(Debug)]
#[non_exhaustive]
pub struct Shader {
    /// The file it was read from.
    pub path: PathBuf,
    /// Its text.
    pub source: String,
    /// naga's module.
    pub module: naga::Module,
    /// naga's analysis of it (which globals each entry point uses).
    pub info: ModuleInfo,
    /// The sizes and alignments of its types (WGSL's host-shareable layout).
    pub layouter: naga::proc::Layouter,
}

impl Shader {
    /// Reads a shader file (WGSL, or GLSL: see [`Shader::parse`]) and
    /// validates it; naga's errors come back rendered with the file's
    /// path, line and column.
    pub fn load(path: &Path) -> Result<Shader, LaunchError> {
        let source = std::fs::read_to_string(path).map_err(|e| LaunchError::Read { path: path.to_owned(), source: e })?;
        Self::parse(source, path)
    }

    /// [`Shader::load`] of a shader already read: GLSL for a `.comp` or
    /// `.glsl` path (a compute shader, through naga's GLSL front-end),
    /// WGSL otherwise.
    pub fn parse(source: String, path: &Path) -> Result<Shader, LaunchError> {
        let shown = path.display().to_string();
        let glsl = path.extension().is_some_and(|e| e == "comp" || e == "glsl");
        let module = if glsl {
            let options = naga::front::glsl::Options::from(naga::ShaderStage::Compute);
            naga::front::glsl::Frontend::default()
                .parse(&options, &source)
                .map_err(|e| LaunchError::Shader { message: e.emit_to_string_with_path(&source, &shown) })?
        } else {
            naga::front::wgsl::parse_str(&source).map_err(|e| LaunchError::Shader { message: e.emit_to_string_with_path(&source, &shown) })?
        };
        let info = Validator::new(ValidationFlags::all(), Capabilities::all())
            .validate(&module)
            .map_err(|e| LaunchError::Shader { message: e.emit_to_string_with_path(&source, &shown) })?;
        let mut layouter = naga::proc::Layouter::default();
        layouter.update(module.to_ctx()).map_err(|e| LaunchError::Shader { message: format!("{shown}: {e}") })?;
        Ok(Shader { path: path.to_owned(), source, module, info, layouter })
    }

    /// The resource variables (storage and uniform) by (group, binding).
    pub fn bindings(&self) -> BTreeMap<(u32, u32), naga::Handle<naga::GlobalVariable>> {
        self.module.global_variables.iter().filter_map(|(h, g)| g.binding.as_ref().map(|b| ((b.group, b.binding), h))).collect()
    }

    /// Entry point `entry` as a kernel for ld's compiler, with the
    /// override constants `overrides` applied (naga's pipeline-constant
    /// processing, as wgpu applies them when it creates the pipeline).
    /// A construct ld cannot check is an error at its line and column.
    pub fn kernel(&self, entry: &str, overrides: &BTreeMap<String, f64>) -> Result<ld_compiler::front::Kernel, LaunchError> {
        let shown = self.path.display().to_string();
        let constants: naga::back::PipelineConstants = overrides.iter().map(|(k, v)| (k.clone(), *v)).collect();
        let stage = Some((naga::ShaderStage::Compute, entry));
        let (module, info) = naga::back::pipeline_constants::process_overrides(&self.module, &self.info, stage, &constants)
            .map_err(|e| LaunchError::Shader { message: format!("{shown}: entry point `{entry}`'s override constants: {e}") })?;
        ld_compiler::front::translate(&module, &info, entry).map_err(|r| LaunchError::Unsupported { message: r.render(&shown, &self.source) })
    }

    /// Whether the module declares a global variable (a storage, uniform or
    /// workgroup one) of this name.
    pub fn declares(&self, name: &str) -> bool {
        self.module.global_variables.iter().any(|(_, g)| g.name.as_deref() == Some(name))
    }
}

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
        let known: Vec<&str> = module.overrides.iter().filter_map(|(_, o)| o.name.as_deref()).collect();
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
        let bytes = spec.bytes().expect("not a uniform");
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
