//! The checks a launch makes before anything runs: the arguments against
//! the kernel's signature (count, element types, writability, sizes,
//! aliasing) and the grid against the device's limits, so a mistake is an
//! error naming the parameter, not a garbage result.

use super::args::scalar_word;
use super::{Arg, BufArg, Launch};
use crate::buffer::Store;
use crate::error::{Error, Result};
use crate::kernel::ParamKind;
use ld_shaders::abi::MAX_WORKGROUPS_PER_DIMENSION;
use std::any::TypeId;

impl Launch<'_> {
    /// Validates arguments and grid; returns the packed scalar words.
    pub(super) fn validate(&self) -> Result<Vec<u32>> {
        let info = self.info;
        if self.args.len() != info.params.len() {
            return Err(Error::ArgCount { kernel: info.name, expected: info.params.len(), given: self.args.len(), signature: info.signature() });
        }
        self.check_grid()?;
        let mut uniforms = Vec::new();
        for (i, (p, a)) in info.params.iter().zip(&self.args).enumerate() {
            let err = |problem: String| Error::Arg { kernel: info.name, index: i, param: p.name, expected: p.kind.to_string(), problem };
            match (&p.kind, a) {
                (ParamKind::Storage { elem, writable }, Arg::Buffer(b)) => {
                    self.check_buffer(b, elem.type_id, elem.name, &err)?;
                    if *writable && !b.exclusive {
                        return Err(err(format!("the kernel writes `{}`: pass it as `&mut`", p.name)));
                    }
                }
                (ParamKind::Atomic { elem }, Arg::Buffer(b)) => {
                    self.check_buffer(b, elem.type_id, elem.name, &err)?;
                    if !b.exclusive {
                        return Err(err(format!("atomics write `{}`: pass it as `&mut`", p.name)));
                    }
                }
                (ParamKind::Uniform { scalar }, a) => uniforms.push(scalar_word(*scalar, a).map_err(err)?),
                (_, a) => return Err(err(format!("got {}; buffers are passed as `&buf` or `&mut buf`", a.describe()))),
            }
        }
        self.check_aliasing()?;
        Ok(uniforms)
    }

    fn check_buffer(&self, b: &BufArg, want: fn() -> TypeId, want_name: &str, err: &dyn Fn(String) -> Error) -> Result<()> {
        if b.elem != want() {
            return Err(err(format!("got a buffer of `{}`, the kernel reads `{want_name}`", b.elem_name)));
        }
        if b.len == 0 {
            return Err(err("the buffer is empty; bindings need at least one element (wgpu cannot bind zero bytes)".into()));
        }
        if b.len > u32::MAX as usize {
            return Err(err("more than 2^32 elements cannot be indexed by a kernel".into()));
        }
        match (b.store, &self.rt.gpu) {
            (Store::Gpu { ctx, .. }, Some(rt)) if std::sync::Arc::ptr_eq(ctx, rt) => Ok(()),
            (Store::Cpu(_), None) => Ok(()),
            _ => Err(err("the buffer belongs to another runtime; create buffers with the runtime that launches the kernel".into())),
        }
    }

    fn check_aliasing(&self) -> Result<()> {
        let bufs: Vec<(usize, &BufArg)> = self.args.iter().enumerate().filter_map(|(i, a)| if let Arg::Buffer(b) = a { Some((i, b)) } else { None }).collect();
        for (x, (i, a)) in bufs.iter().enumerate() {
            for (j, b) in &bufs[x + 1..] {
                if a.id == b.id && (a.exclusive || b.exclusive) {
                    let p = &self.info.params[*j];
                    return Err(Error::Arg {
                        kernel: self.info.name,
                        index: *j,
                        param: p.name,
                        expected: p.kind.to_string(),
                        problem: format!(
                            "the same buffer is also bound to `{}`, and one of them is written: WGSL forbids aliasing a writable binding",
                            self.info.params[*i].name
                        ),
                    });
                }
            }
        }
        Ok(())
    }

    fn check_grid(&self) -> Result<()> {
        let max = self.rt.gpu.as_ref().map(|g| g.limits.max_compute_workgroups_per_dimension).unwrap_or(MAX_WORKGROUPS_PER_DIMENSION);
        let g = self.grid.0;
        let problem = if g.contains(&0) {
            Some("every dimension needs at least one workgroup".to_string())
        } else if g.iter().any(|&d| d > max) {
            Some(format!(
                "the device allows at most {max} workgroups per dimension; spread the grid over y and z (`Grid::cover_2d`), or loop inside the kernel"
            ))
        } else {
            None
        };
        match problem {
            Some(problem) => Err(Error::Grid { kernel: self.info.name, grid: g, problem }),
            None => Ok(()),
        }
    }
}
