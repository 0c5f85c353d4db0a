//! The CPU reference executor: runs a kernel's generated twin with WGSL
//! semantics, checking every access, so its answers can judge the GPU's.
//! A kernel loaded at run time has no twin: it runs as native code
//! compiled when it is loaded (`jit`), or, where the host has no code
//! generator, through the interpreter (`interp`); both follow the twin's
//! semantics exactly.

pub mod executor;
pub mod group;
pub mod interp;
pub mod jit;
pub mod ops;
pub mod twin;

use crate::kernel::NewGroup;
use ld_compiler::ir::Module;

/// How a loaded kernel's workgroups are made on the CPU: `module` and
/// `sites` as `interp::Program::new` takes them. The program lives as
/// long as the process, as the loaded kernel's description does.
pub(crate) fn loaded(module: Module, sites: Vec<(u32, u32)>) -> NewGroup {
    match jit::Jitted::new(&module, &sites) {
        Ok(native) => {
            let native: &'static jit::Jitted = Box::leak(Box::new(native));
            native.new_group()
        }
        Err(why) => {
            log::debug!("the loaded kernel is interpreted on the CPU: {}", why.0);
            let program: &'static interp::Program = Box::leak(Box::new(interp::Program::new(module, sites)));
            Box::leak(Box::new(move |n| program.new_group(n)))
        }
    }
}
