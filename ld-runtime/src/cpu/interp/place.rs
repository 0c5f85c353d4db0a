//! Places as the twin addresses them (its `place`): a local projects to a
//! word offset in the frame, a memory element to `(mem, index, inner)`
//! for `Cx`. Fields and components are offsets known when the program is
//! made; index expressions run in the twin's order (a memory root's
//! index, then the path's, left to right), each array index
//! bounds-checked by `Cx::index` at the access's site (a fault, or under
//! WGSL's rule the last element, and a write there skipped).

use super::eval::{Compiler, Eval, Operand, Scalar, Site, Value, R};
use super::frame;
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

/// A place, found at run time.
pub(super) type PlaceFn = Box<dyn Fn(&mut Eval<'_, '_>) -> R<Loc> + Send + Sync>;

/// One step of a path at run time (`frame::Step`, its index compiled).
enum Step {
    Skip(u32),
    Index { index: Index, len: u32, stride: u32 },
}

/// An index expression, widened as the twin widens it (`(i) as i64`): an
/// `i32` sign-extended, a `u32` not, so a negative index is out of
/// bounds, not huge.
pub(super) struct Index {
    word: Operand,
    signed: bool,
}

impl Index {
    pub fn get(&self, ev: &mut Eval) -> R<i64> {
        let w = self.word.get(ev)?;
        Ok(if self.signed { w as i32 as i64 } else { w as i64 })
    }
}

impl<'p> Compiler<'p> {
    pub fn index(&self, e: &Expr) -> Index {
        Index { word: self.operand(e), signed: e.ty == Type::I32 }
    }

    /// The place's location, and its type; `site` is the access's, for faults.
    pub fn place(&self, p: &Place, site: Site) -> (PlaceFn, &'p Type) {
        match &p.root {
            Root::Local(id) => {
                let (base, ty) = self.local(*id);
                let (steps, ty) = self.path(&p.path, ty);
                let base = base as u32;
                let f: PlaceFn = Box::new(move |ev| {
                    ev.clamped = false;
                    Ok(Loc::Local(base.wrapping_add(walk(&steps, ev, site)?)))
                });
                (f, ty)
            }
            Root::Mem { mem, index, .. } => {
                let (elem, mem) = (self.mem_elem(*mem), self.mem(*mem));
                let index = self.index(index);
                let (steps, ty) = self.path(&p.path, elem);
                let f: PlaceFn = Box::new(move |ev| {
                    ev.clamped = false;
                    let mem = mem.get(ev);
                    let index = index.get(ev)?;
                    Ok(Loc::Mem { mem, index, inner: walk(&steps, ev, site)? })
                });
                (f, ty)
            }
        }
    }

    /// A path's steps from a value of type `ty` (`frame::steps`), their
    /// indices compiled, and the type it reaches.
    fn path(&self, path: &[Proj], ty: &'p Type) -> (Vec<Step>, &'p Type) {
        let (steps, ty) = frame::steps(self.shapes, self.module, path, ty);
        let steps = steps.into_iter().map(|s| match s {
            frame::Step::Skip(k) => Step::Skip(k),
            frame::Step::Index { index, len, stride } => Step::Index { index: self.index(index), len, stride },
        });
        (steps.collect(), ty)
    }

    /// A scalar place's word, read at the load's span.
    pub fn load_word(&self, p: &Place, span: Span) -> Scalar {
        let site = self.site(span);
        let settled = settled(p);
        match (&p.root, p.path.is_empty()) {
            // A whole local: no place to find.
            (Root::Local(id), true) => {
                let (off, _) = self.local(*id);
                Box::new(move |ev| Ok(ev.frame[off]))
            }
            // A scalar element: no path to follow.
            (Root::Mem { mem, index, .. }, true) => {
                let (mem, index) = (self.mem(*mem), self.index(index));
                Box::new(move |ev| {
                    let mem = mem.get(ev);
                    let index = index.get(ev)?;
                    ev.read(Loc::Mem { mem, index, inner: 0 }, settled, site)
                })
            }
            _ => {
                let (place, _) = self.place(p, site);
                Box::new(move |ev| {
                    let loc = place(ev)?;
                    ev.read(loc, settled, site)
                })
            }
        }
    }

    /// A place's words: memory one word at a time (every word's access is
    /// checked and routed as the twin's one read of the whole value checks
    /// and routes each word).
    pub fn load_into(&self, p: &Place, span: Span) -> Value {
        let site = self.site(span);
        let settled = settled(p);
        let (place, ty) = self.place(p, site);
        let k = self.shapes.words(ty);
        Box::new(move |ev, out| {
            match place(ev)? {
                Loc::Local(o) => out.extend_from_slice(&ev.frame[o as usize..(o + k) as usize]),
                Loc::Mem { mem, index, inner } => {
                    for j in 0..k {
                        out.push(ev.read(Loc::Mem { mem, index, inner: inner + j }, settled, site)?);
                    }
                }
            }
            Ok(())
        })
    }
}

/// The path's offset in words, its indices evaluated and bounds-checked.
fn walk(steps: &[Step], ev: &mut Eval, site: Site) -> R<u32> {
    let mut off = 0u32;
    for s in steps {
        off = off.wrapping_add(match s {
            Step::Skip(k) => *k,
            Step::Index { index, len, stride } => {
                let i = index.get(ev)?;
                let (k, clamped) = ev.cx.index(i, *len, site)?;
                ev.clamped |= clamped;
                k.wrapping_mul(*stride)
            }
        });
    }
    Ok(off)
}

impl Eval<'_, '_> {
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
