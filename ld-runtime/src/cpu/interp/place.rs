//! Places as the twin addresses them (its `place`): a local projects to a
//! word offset in the frame, a memory element to `(mem, index, inner)`
//! for `Cx`. Index expressions run in the twin's order (a memory root's
//! index, then the path's, left to right), each array index
//! bounds-checked by `Cx::index` at the access's site (a fault, or under
//! WGSL's rule the last element, and a write there skipped).

use super::eval::{Eval, Site, R};
use crate::cpu::twin::Mem;
use ld_compiler::ir::{Expr, Place, Proj, Root, Type};
use ld_compiler::Span;

/// Where a place's words are.
#[derive(Clone, Copy, Debug)]
pub(super) enum Loc {
    /// From this word of the frame.
    Local(u32),
    /// Element `index` of `mem`, `inner` words into it.
    Mem { mem: Mem, index: i64, inner: u32 },
}

/// A `UVec3` component's type, borrowed like every other place type.
static U32: Type = Type::U32;

impl<'e> Eval<'e, '_> {
    /// The place's location and type; `site` is the access's, for faults.
    pub fn place(&mut self, p: &Place, site: Site) -> R<(Loc, &'e Type)> {
        self.clamped = false;
        match &p.root {
            Root::Local(id) => {
                let (mut off, mut ty) = (self.scope.layout.offset(*id), &self.scope.locals[*id].ty);
                for pr in &p.path {
                    let (o, t) = self.project(pr, ty, site)?;
                    (off, ty) = (off + o, t);
                }
                Ok((Loc::Local(off), ty))
            }
            Root::Mem { mem, index, .. } => {
                let (mut ty, mem) = (self.mem_elem(*mem), self.mem(*mem));
                let index = self.index(index)?;
                let mut inner = 0u32;
                for pr in &p.path {
                    let (o, t) = self.project(pr, ty, site)?;
                    (inner, ty) = (inner.wrapping_add(o), t);
                }
                Ok((Loc::Mem { mem, index, inner }, ty))
            }
        }
    }

    /// One step of a path: its offset in words within a value of type
    /// `ty`, and the type it reaches.
    fn project(&mut self, pr: &Proj, ty: &'e Type, site: Site) -> R<(u32, &'e Type)> {
        let prog = self.prog;
        match (pr, ty) {
            (Proj::Index(i), Type::Array(e, n)) => {
                let i = self.index(i)?;
                let (k, clamped) = self.cx.index(i, *n, site)?;
                self.clamped |= clamped;
                Ok((k.wrapping_mul(prog.shapes.words(e)), e))
            }
            (Proj::Field(f), Type::Struct(s)) => Ok((prog.shapes.field_offset(*s, *f), &prog.module.structs[*s].fields[*f].1)),
            (Proj::Component(c), _) => Ok((*c, &U32)),
            _ => unreachable!("ill-typed projection {pr:?} of {ty:?}"),
        }
    }

    /// An index as the twin widens it (`(i) as i64`): an `i32` sign-extended,
    /// a `u32` not, so a negative index is out of bounds, not huge.
    fn index(&mut self, e: &Expr) -> R<i64> {
        let w = self.scalar(e)?;
        Ok(if e.ty == Type::I32 { w as i32 as i64 } else { w as i64 })
    }

    /// A scalar place's word, read at the load's span.
    pub fn load_word(&mut self, p: &Place, span: Span) -> R<u32> {
        let site = self.site(span);
        if let (Root::Mem { mem, index, settled, .. }, true) = (&p.root, p.path.is_empty()) {
            // A scalar element, the commonest memory load: no path to follow.
            let (mem, index) = (self.mem(*mem), self.index(index)?);
            return self.read(Loc::Mem { mem, index, inner: 0 }, *settled, site);
        }
        let (loc, _) = self.place(p, site)?;
        self.read(loc, settled(p), site)
    }

    /// A place's words, appended to `out`: memory one word at a time
    /// (every word's access is checked and routed as the twin's one read
    /// of the whole value checks and routes each word).
    pub fn load_into(&mut self, p: &Place, span: Span, out: &mut Vec<u32>) -> R<()> {
        let site = self.site(span);
        let (loc, ty) = self.place(p, site)?;
        let k = self.prog.shapes.words(ty);
        match loc {
            Loc::Local(o) => out.extend_from_slice(&self.frame[o as usize..(o + k) as usize]),
            Loc::Mem { mem, index, inner } => {
                for j in 0..k {
                    out.push(self.read(Loc::Mem { mem, index, inner: inner + j }, settled(p), site)?);
                }
            }
        }
        Ok(())
    }

    /// One word; a settled read goes through `Cx::read_settled`.
    pub fn read(&mut self, loc: Loc, settled: bool, site: Site) -> R<u32> {
        match loc {
            Loc::Local(o) => Ok(self.frame[o as usize]),
            Loc::Mem { mem, index, inner } if settled => Ok(self.cx.read_settled::<u32>(mem, index, inner, site)?),
            Loc::Mem { mem, index, inner } => Ok(self.cx.read::<u32>(mem, index, inner, site)?),
        }
    }

    /// Whether a write at `loc`, just placed, goes ahead (see `Cx::lands`).
    pub fn lands(&mut self, loc: Loc, site: Site) -> R<bool> {
        Ok(!self.clamped
            && match loc {
                Loc::Local(_) => true,
                Loc::Mem { mem, index, .. } => self.cx.lands(mem, index, site)?,
            })
    }

    /// Writes `words` at `loc` (nowhere where its place was clamped).
    pub fn write(&mut self, loc: Loc, words: &[u32], site: Site) -> R<()> {
        if self.clamped {
            return Ok(());
        }
        match loc {
            Loc::Local(o) => self.frame[o as usize..o as usize + words.len()].copy_from_slice(words),
            Loc::Mem { mem, index, inner } => {
                for (j, w) in words.iter().enumerate() {
                    self.cx.write::<u32>(mem, index, inner + j as u32, *w, site)?;
                }
            }
        }
        Ok(())
    }
}

/// Whether a load of `p` is a settled read (`analysis::settled`).
fn settled(p: &Place) -> bool {
    matches!(p.root, Root::Mem { settled: true, .. })
}
