//! bfs: Rodinia 2.4's breadth-first search, as the paper ran it.
//!
//! A random undirected graph in CSR form (Rodinia's `graphgen`: every node
//! draws 2 to 4 random neighbours, edges stored both ways) is searched from
//! node 0, level by level: `expand` (Rodinia's `Kernel`) takes every node
//! of the frontier out of it and, for each unvisited neighbour `n`, sets
//! `cost[n] = cost[v] + 1` and `updating[n] = 1`; `update` (`Kernel2`)
//! makes the marked nodes the next frontier, marks them visited and sets
//! the `over` flag; the host repeats until `over` stays 0. Verified: the
//! levels (`cost`) equal a host BFS exactly.
//!
//! Configuration: the paper's 16 workgroups of 256 (Rodinia's graph4096);
//! we default to 131072 nodes (512 workgroups of 256), scaled by `--size`.
//! Check mode keeps one copy of every written storage buffer per unit, and
//! `expand` writes anywhere, so its memory and time grow with the square of
//! the graph: `--check --size 0.1` (13107 nodes) is about the largest that
//! fits the device's buffer limit comfortably. Rodinia's `bool` arrays are
//! `u32` words here (WGSL storage has no bytes or bools).
//!
//! The races (Table VI: bfs, rw,ww, global): two frontier nodes with a
//! common unvisited neighbour both store its `cost` and its `updating`
//! flag, and every node that joins the frontier stores `over[0] = 1`.
//! These are write-write races on storage, benign for the result (every
//! writer stores the same level, 1 or true), and value-based checking sees
//! them because every writer changes the word (from -1 or 0). Check mode
//! reports them between warps and between workgroups on `cost`, `updating`
//! (`expand`) and `over` (`update`), identically on both backends.
//!
//! It reports no read-write race, where the paper reports rw and ww: in a
//! level-synchronous BFS no invocation reads a word that another writes in
//! the same launch (frontier nodes, whose `cost` is read, are visited;
//! written neighbours are unvisited; `visited` is only written by
//! `update`), so there is no read-write race here to find. The paper's rw
//! entry most likely comes from its 1-byte `bool` arrays (several nodes'
//! flags in one checked word), which this version does not have.
//!
//! `--fixed` makes the racy stores atomic (`cost`, `updating` and `over`
//! become `AtomicI32`/`AtomicU32` stores); check mode then reports no race.
//!
//! `cargo run --release --example bfs -- [--fixed] [--cpu] [--check] [--json] [--warp-size N] [--size X]`

mod common;

#[path = "apps/bfs.rs"]
mod bfs;

fn main() {
    common::app::main::<bfs::Bfs>()
}
