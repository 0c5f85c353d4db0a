//! `lower::machine`: which statements become blocks, and where each block's
//! terminator leads. A machine is written one block a line,
//! `bN: statements -> terminator`, statements by kind and target (`let i`,
//! `tile[..] =`, `loop { .. }`), so a test reads as the control-flow graph.

use super::module;
use ld_compiler::ir::*;
use ld_compiler::lower::{machine, Term};

fn show_block(k: &Kernel, b: &[Stmt]) -> String {
    b.iter().map(|s| show_stmt(k, s)).collect::<Vec<_>>().join("; ")
}

fn braced(k: &Kernel, b: &[Stmt]) -> String {
    if b.is_empty() {
        "{}".into()
    } else {
        format!("{{ {} }}", show_block(k, b))
    }
}

fn show_stmt(k: &Kernel, s: &Stmt) -> String {
    let local = |id: LocalId| k.body.locals[id].name.clone();
    match &s.kind {
        StmtKind::Let(id, _) => format!("let {}", local(*id)),
        StmtKind::Assign(p, op, _) => {
            let target = match &p.root {
                Root::Local(id) => local(*id),
                Root::Mem { mem: MemRef::Param(i), .. } => format!("{}[..]", k.params[*i].name),
                Root::Mem { mem: MemRef::Shared(i), .. } => format!("{}[..]", k.shared[*i].name),
                Root::Mem { mem: MemRef::FnSlice(i), .. } => format!("slice{i}[..]"),
            };
            let op = if op.is_some() { "op=" } else { "=" };
            format!("{target} {op}")
        }
        StmtKind::Expr(_) => "expr".into(),
        StmtKind::If(_, a, b) => format!("if {} else {}", braced(k, a), braced(k, b)),
        StmtKind::Loop(l) => format!("loop {}", braced(k, &l.body)),
        StmtKind::Break => "break".into(),
        StmtKind::Continue => "continue".into(),
        StmtKind::Return(_) => "return".into(),
        StmtKind::Barrier(_) => "barrier".into(),
    }
}

/// The kernel's state machine, one block a line.
fn lowered(src: &str) -> String {
    let m = module(src);
    let k = &m.kernel;
    let mut out = String::new();
    for (i, b) in machine(&k.body.block).blocks.iter().enumerate() {
        let term = match &b.term {
            Term::Return => "return".to_string(),
            Term::Goto(t) => format!("goto b{t}"),
            Term::Branch(_, t, f, None) => format!("branch b{t} b{f}"),
            // A loop's head: each arrival starts an iteration (and spends fuel).
            Term::Branch(_, t, f, Some(_)) => format!("loop b{t} b{f}"),
            Term::Barrier(kind, next, _, span) => {
                let name = match kind {
                    BarrierKind::Workgroup => "barrier()",
                    BarrierKind::Storage => "storage_barrier()",
                };
                format!("{name} at line {} then b{next}", crate::spans::get(*span).start().line)
            }
        };
        let stmts = show_block(k, &b.stmts);
        let sep = if stmts.is_empty() { "" } else { " " };
        out += &format!("b{i}:{sep}{stmts} -> {term}\n");
    }
    out
}

#[track_caller]
fn assert_lowers(src: &str, expected: &str) {
    let got = lowered(src.strip_prefix('\n').unwrap_or(src));
    let want = expected.strip_prefix('\n').unwrap_or(expected);
    assert!(got == want, "--- expected:\n{want}--- got:\n{got}");
}

#[test]
fn kernel_without_barrier_is_one_block() {
    assert_lowers(
        r#"
#[ld::kernel(workgroup_size = 64)]
fn k(data: &mut [u32], n: u32) {
    let i = global_id().x;
    if i < n {
        data[i] = 0;
    }
    for j in 0..n {
        if j == i {
            break;
        }
    }
}
"#,
        r#"
b0: let i; if { data[..] = } else {}; let ld_ctr; let ld_end; loop { let j; if { break } else {} } -> return
"#,
    );
}

/// A `for` loop with a barrier in its body (lowered in `barrier_in_for_loop`).
const FOR_LOOP: &str = r#"
#[ld::kernel(workgroup_size = 64)]
fn k(data: &mut [u32], n: u32) {
    let tile = shared::<[u32; 64]>();
    let lid = local_index();
    let mut acc = 0u32;
    for s in 0..n {
        tile[lid] = s;
        barrier();
        acc += tile[63 - lid];
    }
    data[global_id().x] = acc;
}
"#;

/// A `loop` around a `while` with a barrier and a `break` (lowered in
/// `barrier_in_nested_loops`).
const NESTED_LOOPS: &str = r#"
#[ld::kernel(workgroup_size = 64)]
fn k(data: &mut [u32], n: u32) {
    let mut round = 0u32;
    loop {
        let mut j = 0u32;
        while j < n {
            barrier();
            if j == 2 {
                break;
            }
            j += 1;
        }
        round += 1;
        if round == n {
            break;
        }
    }
    data[global_id().x] = round;
}
"#;

#[test]
fn barrier_in_for_loop() {
    // The loop becomes head (its condition), body, continuing (the counter
    // increment) and exit blocks; the barrier splits the body in two.
    assert_lowers(
        FOR_LOOP,
        r#"
b0: let lid; let acc; let ld_ctr; let ld_end -> goto b1
b1: -> loop b2 b4
b2: let s; tile[..] = -> barrier() at line 8 then b5
b3: ld_ctr = -> goto b1
b4: data[..] = -> return
b5: acc op= -> goto b3
"#,
    );
}

#[test]
fn barrier_in_if_branch() {
    // Both arms end at a join block; the code after the `if`, up to the
    // next barrier, starts there.
    assert_lowers(
        r#"
#[ld::kernel(workgroup_size = 64)]
fn k(data: &mut [u32], n: u32) {
    let tile = shared::<[u32; 64]>();
    let lid = local_index();
    tile[lid] = data[global_id().x];
    if n > 1 {
        barrier();
        data[global_id().x] = tile[63 - lid];
    } else {
        data[global_id().x] = 0;
    }
    storage_barrier();
}
"#,
        r#"
b0: let lid; tile[..] = -> branch b1 b2
b1: -> barrier() at line 7 then b4
b2: data[..] = -> goto b3
b3: -> storage_barrier() at line 12 then b5
b4: data[..] = -> goto b3
b5: -> return
"#,
    );
}

#[test]
fn break_and_continue_out_of_exploded_loop() {
    // An `if` holding a `break`/`continue` aimed at an exploded loop is
    // exploded too: `continue` goes to the continuing block (so the counter
    // still advances), `break` to the exit; what follows a jump lands in a
    // dead block. The inner `while` has no barrier: it stays structured,
    // its own `break` with it.
    assert_lowers(
        r#"
#[ld::kernel(workgroup_size = 64)]
fn k(data: &mut [u32], n: u32) {
    let tile = shared::<[u32; 64]>();
    for i in 0..n {
        if i == 3 {
            continue;
        }
        let mut j = 0u32;
        while j < 4 {
            if j == i {
                break;
            }
            j += 1;
        }
        tile[local_index()] = j;
        barrier();
        if i > 5 {
            break;
        }
    }
    data[global_id().x] = tile[0];
}
"#,
        r#"
b0: let ld_ctr; let ld_end -> goto b1
b1: -> loop b2 b4
b2: let i -> branch b5 b6
b3: ld_ctr = -> goto b1
b4: data[..] = -> return
b5: -> goto b3
b6: -> goto b7
b7: let j; loop { if { break } else {}; j op= }; tile[..] = -> barrier() at line 16 then b9
b8: -> goto b7
b9: -> branch b10 b11
b10: -> goto b4
b11: -> goto b12
b12: -> goto b3
b13: -> goto b12
"#,
    );
}

#[test]
fn barrier_in_nested_loops() {
    // `loop` has no condition: its head branches on `true` to the body
    // (the arrival starts an iteration, as every loop head's). The inner
    // `while` holds the barrier, so both loops are exploded, and the
    // inner `break` leaves only the inner loop.
    assert_lowers(
        NESTED_LOOPS,
        r#"
b0: let round -> goto b1
b1: -> loop b2 b4
b2: let j -> goto b5
b3: -> goto b1
b4: data[..] = -> return
b5: -> loop b6 b8
b6: -> barrier() at line 7 then b9
b7: -> goto b5
b8: round op= -> branch b14 b15
b9: -> branch b10 b11
b10: -> goto b8
b11: -> goto b12
b12: j op= -> goto b7
b13: -> goto b12
b14: -> goto b4
b15: -> goto b16
b16: -> goto b3
b17: -> goto b16
"#,
    );
}

/// Barrier indices follow the statements' order in the source, not the
/// blocks' (a loop's exit block is made before its body's blocks): every
/// back end names a barrier by this index.
#[test]
fn barrier_indices_follow_source_order() {
    let m = module(
        "#[ld::kernel(workgroup_size = 64)]
fn k(data: &mut [u32], n: u32) {
    let tile = shared::<[u32; 64]>();
    for i in 0..n {
        tile[local_index()] = i;
        barrier();
        data[i] = tile[0];
        storage_barrier();
    }
    barrier();
}",
    );
    let blocks = machine(&m.kernel.body.block).blocks;
    let by_block: Vec<usize> = blocks.iter().filter_map(|b| if let Term::Barrier(_, _, index, _) = b.term { Some(index) } else { None }).collect();
    assert_ne!(by_block, vec![0, 1, 2], "the case must put a barrier's block out of source order");
    let kinds: Vec<BarrierKind> = ld_compiler::wgsl::barriers(&m).into_iter().map(|(kind, _)| kind).collect();
    assert_eq!(kinds, vec![BarrierKind::Workgroup, BarrierKind::Storage, BarrierKind::Workgroup]);
}
