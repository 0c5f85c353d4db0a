//! Statements: each becomes WGSL lines, assignments through indices
//! guarded, integer compound assignments through ld's helpers.

use super::*;

impl Writer<'_> {
    pub(super) fn stmt(&mut self, f: &mut Func, s: &Stmt) {
        self.stmt_only(f, s);
        // A helper that stopped the invocation returned a zero value: the
        // caller stops after the statement that called it.
        if own_exprs(s).iter().any(|e| calls_any(e, &self.may_halt)) {
            let line = format!("if ld_halt {{ {} }}", f.halt);
            line_to(f, &line);
        }
    }

    pub(super) fn stmt_only(&mut self, f: &mut Func, s: &Stmt) {
        match &s.kind {
            StmtKind::Let(id, Some(e)) => {
                let v = self.expr(f, e);
                let keyword = if f.lets.contains(id) { "let " } else { "" };
                let line = format!("{keyword}{} = {v};", f.names[*id]);
                line_to(f, &line);
            }
            StmtKind::Let(_, None) => {}
            StmtKind::Assign(p, op, v) if !indices(p).is_empty() => {
                let line = self.guarded_assign(f, p, *op, v, s.span);
                line_to(f, &line);
            }
            StmtKind::Assign(p, Some(op), v) if int_op(*op, &self.place_type(f, p)).is_some() => {
                let line = self.assign_int_op(f, p, *op, v);
                line_to(f, &line);
            }
            StmtKind::Assign(p, op, v) => {
                let place = self.place(f, p, s.span);
                let v = self.expr(f, v);
                let line = match op {
                    None => format!("{place} = {v};"),
                    Some(op) => self.compound_text(*op, &self.place_type(f, p), &place, &v),
                };
                line_to(f, &line);
            }
            StmtKind::Expr(e @ Expr { kind: ExprKind::Atomic(op, ..), .. }) if !self.variant.as_written() => {
                let x = self.atomic_site(f, e, if *op == AtomicOp::Store { &Type::Unit } else { &e.ty });
                line_to(f, &format!("{};", if *op == AtomicOp::Store { x } else { format!("_ = {x}") }));
            }
            StmtKind::Expr(e) => {
                let x = self.expr(f, e);
                if e.ty == Type::Unit {
                    line_to(f, &format!("{x};"));
                } else {
                    line_to(f, &format!("_ = {x};"));
                }
            }
            // A choice between two barriers (`if c { storage_barrier() }
            // else { barrier() }`) ends the region at one call site, the
            // barrier chosen by value: the condition is uniform (the macro
            // proves it), and lavapipe would run both arms' region code,
            // one of them masked.
            StmtKind::If(c, a, b) if !self.variant.as_written() && is_one_barrier(a) && is_one_barrier(b) => {
                let c = self.expr(f, c);
                let (then, other) = (self.next_barrier, self.next_barrier + 1);
                self.next_barrier += 2;
                let probe = self.probe_args(&[&a[0], &b[0]], None);
                let line = format!("{}(select({other}u, {then}u, {c}){probe});", self.region_call());
                line_to(f, &line);
            }
            StmtKind::If(c, a, b) => {
                let c = self.expr(f, c);
                line_to(f, &format!("if {c} {{"));
                f.indent += 1;
                self.block(f, a);
                f.indent -= 1;
                if b.is_empty() {
                    line_to(f, "}");
                } else {
                    line_to(f, "} else {");
                    f.indent += 1;
                    self.block(f, b);
                    f.indent -= 1;
                    line_to(f, "}");
                }
            }
            StmtKind::Loop(l) => {
                // The guard (`ld_shaders`' guard.wgsl): every iteration the
                // loop starts spends fuel; the flag says the loop ended by
                // its own hand (its condition, a `break`). Without it, the
                // loop ran out of fuel or the driver ended it: the
                // invocation stops. The plain kernel has no guard (and no
                // flag: an empty one).
                let guarded = self.variant != Variant::Plain;
                let (site, flag) = if guarded {
                    let site = self.site(SiteWhat::Loop, "", None, s.span);
                    let flag = format!("ld_e{}", f.next_loop);
                    f.next_loop += 1;
                    line_to(f, &format!("var {flag} = false;"));
                    (site, flag)
                } else {
                    (0, String::new())
                };
                line_to(f, "loop {");
                f.indent += 1;
                if guarded {
                    line_to(f, "if ld_fuel == 0u { break; }");
                    line_to(f, "ld_fuel -= 1u;");
                }
                if let Some(c) = &l.cond {
                    let c = self.expr(f, c);
                    let ends = if guarded { format!("{flag} = true; ") } else { String::new() };
                    line_to(f, &format!("if !{c} {{ {ends}break; }}"));
                }
                f.loops.push(flag.clone());
                self.block(f, &l.body);
                f.loops.pop();
                if !l.continuing.is_empty() {
                    line_to(f, "continuing {");
                    f.indent += 1;
                    // (Generated counter updates: no call that could stop.)
                    for c in &l.continuing {
                        self.stmt_only(f, c);
                    }
                    f.indent -= 1;
                    line_to(f, "}");
                }
                f.indent -= 1;
                line_to(f, "}");
                if guarded {
                    let line = format!("if !{flag} {{ ld_stopped({site}u); {} }}", f.halt);
                    line_to(f, &line);
                }
            }
            StmtKind::Break => match f.loops.last().filter(|flag| !flag.is_empty()) {
                Some(flag) => {
                    let line = format!("{flag} = true; break;");
                    line_to(f, &line);
                }
                None => line_to(f, "break;"),
            },
            StmtKind::Continue => line_to(f, "continue;"),
            StmtKind::Return(None) => line_to(f, "return;"),
            StmtKind::Return(Some(e)) => {
                let x = self.expr(f, e);
                line_to(f, &format!("return {x};"));
            }
            // The instrumented kernels' barriers end a region: the engine
            // checks it, or folds it.
            StmtKind::Barrier(_) if !self.variant.as_written() => {
                let probe = self.probe_args(&[s], Some(self.next_barrier));
                let line = format!("{}({}u{probe});", self.region_call(), self.next_barrier);
                self.next_barrier += 1;
                line_to(f, &line);
            }
            StmtKind::Barrier(BarrierKind::Workgroup) => line_to(f, "workgroupBarrier();"),
            StmtKind::Barrier(BarrierKind::Storage) => line_to(f, "storageBarrier();"),
        }
    }

    /// The probe's further arguments of a barrier call: the set of
    /// workgroup arrays whose tags the barriers `at` clear (their union: a
    /// choice between two), a constant at the call so that lavapipe
    /// compiles that set's loops alone; and the region's note (see
    /// `ld_probe_note`): for a barrier of its own call (`id`) a function
    /// the prelude defines, which notes the region in the invocation's
    /// bits where the barriers before it are known, else LD_NONE. Other
    /// variants: none.
    fn probe_args(&mut self, at: &[&Stmt], id: Option<usize>) -> String {
        let Some(clears) = &self.clears else { return String::new() };
        let mut set: Vec<MemRef> = Vec::new();
        for s in at {
            for m in clears.at.get(&(*s as *const Stmt as usize)).into_iter().flatten() {
                if !set.contains(m) {
                    set.push(*m);
                }
            }
        }
        set.sort_by_key(|m| self.targets[m]);
        let c = self.clear_set(set);
        let note = match id {
            Some(id) => {
                self.barrier_stmts.push((id, at[0] as *const Stmt as usize));
                format!("ld_probe_note_{id}()")
            }
            None => "LD_NONE".to_string(),
        };
        format!(", {c}u, {note}")
    }

    /// What an instrumented kernel calls where a region ends: the check,
    /// (deterministic mode's folded kernel) the fold, or (its probe) the
    /// barrier and the workgroup arrays' tags cleared.
    pub(super) fn region_call(&self) -> &'static str {
        match self.variant {
            Variant::Folded => "ld_fold_region",
            Variant::Probe => "ld_probe_region",
            _ => "ld_check_region",
        }
    }

    /// An assignment to a place with indices, guarded: the value first, then
    /// the indices (as the CPU twin evaluates them), each bound once; the
    /// write happens only if every index is in bounds (else the guard notes
    /// the first that is not, in the CPU twin's order: for a memory, the
    /// indices inside its element before the element's).
    pub(super) fn guarded_assign(&mut self, f: &mut Func, p: &Place, op: Option<BinOp>, v: &Expr, span: crate::Span) -> String {
        let ty = self.place_type(f, p);
        let value = match op {
            Some(o) => self.int_operand(f, o, v),
            None => self.expr(f, v),
        };
        let mut lets = vec![format!("let ld_v = {value};")];
        let mut texts = Vec::new();
        let mut checks = Vec::new();
        for (k, (i, len, site)) in self.index_sites(f, p, span).into_iter().enumerate() {
            let t = self.expr(f, i);
            lets.push(format!("let ld_i{k} = {t};"));
            checks.push(self.index_ok(&i.ty, &format!("ld_i{k}"), &len, site));
            texts.push(format!("ld_i{k}"));
        }
        if matches!(p.root, Root::Mem { .. }) {
            checks.rotate_left(1);
        }
        // A helper that stopped the invocation gave a zero value: no write.
        if std::iter::once(v).chain(indices(p)).any(|e| calls_any(e, &self.may_halt)) {
            lets.push(format!("if ld_halt {{ {} }}", f.halt));
        }
        let write = match self.target_place(f, p) {
            Some(t) => {
                let (addr, ty) = self.word_addr(f, p, Some(&texts), span);
                let store = self.accessor(t, &ty, self.word_access(f, p, true));
                match op {
                    None => format!("{store}({addr}, ld_v);"),
                    Some(o) => {
                        // (The probe tags the write alone: it conflicts with
                        // whatever another invocation's access would.)
                        let read = if self.variant == Variant::Probe { WordAccess::SettledRead } else { WordAccess::Read };
                        let load = self.accessor(t, &ty, read);
                        let new = match (int_op(o, &ty), &ty) {
                            (Some(_), Type::Scalar(s)) => format!("{}({load}(ld_a), ld_v)", self.int_op_call(o, *s)),
                            _ => self.binary_text(o, &ty, &format!("{load}(ld_a)"), "ld_v"),
                        };
                        format!("let ld_a = {addr}; {store}(ld_a, {new});")
                    }
                }
            }
            None => {
                let place = self.place_at(f, p, span, Some(&texts));
                match (op, &ty) {
                    (None, _) => format!("{place} = ld_v;"),
                    (Some(o), Type::Scalar(s)) if int_op(o, &ty).is_some() => format!("{place} = {}({place}, ld_v);", self.int_op_call(o, *s)),
                    (Some(o), _) => self.compound_text(o, &ty, &place, "ld_v"),
                }
            }
        };
        format!("{{ {} if {} {{ {write} }} }}", lets.join(" "), checks.join(" && "))
    }

    /// Each index of a place, in evaluation order (the memory's, then
    /// those inside the value), with the length it must be below and its
    /// site.
    pub(super) fn index_sites<'p>(&mut self, f: &Func, p: &'p Place, span: crate::Span) -> Vec<(&'p Expr, String, u32)> {
        let mut out = Vec::new();
        let mut ty = match &p.root {
            Root::Local(id) => f.locals[*id].ty.clone(),
            Root::Mem { mem, index, .. } => {
                let (_, m) = self.mem_name(f, *mem);
                let len = self.mem_len(m);
                let site = self.mem_site(m, span);
                out.push((&**index, len, site));
                self.mem_elem(f, *mem)
            }
        };
        for pr in &p.path {
            ty = match (pr, ty) {
                (Proj::Index(i), Type::Array(e, n)) => {
                    let site = self.site(SiteWhat::Array, "", Some(n), span);
                    out.push((&**i, format!("{n}u"), site));
                    *e
                }
                (Proj::Field(i), Type::Struct(sid)) => self.m.structs[sid].fields[*i].1.clone(),
                (Proj::Component(_), _) => Type::U32,
                _ => unreachable!("ill-typed projection"),
            };
        }
        out
    }

    /// `place op= v` for an operation emitted as a helper call (see
    /// [`int_op`]): the place is evaluated once, before `v`, as `op=` does.
    pub(super) fn assign_int_op(&mut self, f: &mut Func, p: &Place, op: BinOp, v: &Expr) -> String {
        let Type::Scalar(s) = self.place_type(f, p) else { unreachable!("integer operations act on scalars") };
        let call = self.int_op_call(op, s);
        // Only a place without indices can be written twice as is; a vector
        // component (the last projection) has no address.
        let component = match p.path.last() {
            Some(Proj::Component(c)) => Some(["x", "y", "z"][*c as usize]),
            _ => None,
        };
        let pure = matches!(p.root, Root::Local(_)) && !p.path.iter().any(|pr| matches!(pr, Proj::Index(_)));
        if pure {
            let place = self.place(f, p, crate::Span::DETACHED);
            let v = self.int_operand(f, op, v);
            return format!("{place} = {call}({place}, {v});");
        }
        let mut whole = p.clone();
        if component.is_some() {
            whole.path.pop();
        }
        let place = self.place(f, &whole, crate::Span::DETACHED);
        let v = self.int_operand(f, op, v);
        let at = match component {
            Some(c) => format!("(*ld_p).{c}"),
            None => "*ld_p".to_string(),
        };
        format!("{{ let ld_p = &{place}; {at} = {call}({at}, {v}); }}")
    }
}

/// The indices of a place, in evaluation order: the memory's element,
/// then those of arrays inside the value.
pub(super) fn indices(p: &Place) -> Vec<&Expr> {
    let mut out = Vec::new();
    if let Root::Mem { index, .. } = &p.root {
        out.push(&**index);
    }
    for pr in &p.path {
        if let Proj::Index(i) = pr {
            out.push(&**i);
        }
    }
    out
}

/// A statement's own expressions (not those of the blocks inside it).
pub(super) fn own_exprs(s: &Stmt) -> Vec<Expr> {
    match &s.kind {
        StmtKind::Let(_, Some(e)) | StmtKind::Expr(e) | StmtKind::Return(Some(e)) | StmtKind::If(e, _, _) => vec![e.clone()],
        StmtKind::Assign(p, _, v) => indices(p).into_iter().cloned().chain([v.clone()]).collect(),
        StmtKind::Loop(l) => l.cond.iter().cloned().collect(),
        _ => vec![],
    }
}

/// Whether `e` calls one of `fns`.
pub(super) fn calls_any(e: &Expr, fns: &HashSet<FnId>) -> bool {
    let mut found = false;
    crate::ir::visit::expr_mut(&mut e.clone(), &mut |x| found |= matches!(&x.kind, ExprKind::Call(id, _) if fns.contains(id)));
    found
}

/// A block that is one barrier and nothing else.
pub(super) fn is_one_barrier(b: &Block) -> bool {
    matches!(b.as_slice(), [Stmt { kind: StmtKind::Barrier(_), .. }])
}
