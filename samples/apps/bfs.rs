//! bfs as an `App` (see `samples/bfs.rs` for the program and its races).

use crate::common::app::{launch, App, Flags, PaperRow, Verified};
use crate::common::{bits_checksum, Rng};
use ld::{Buffer, Grid, Mode, Report, Runtime};

#[path = "../kernels/bfs.rs"]
pub mod kernels;

use kernels::{Node, THREADS};

/// Rodinia's `graphgen`: every node draws 2..=4 random neighbours, and
/// every edge is stored in both directions (so degrees average 6).
fn graph(n: usize) -> (Vec<Node>, Vec<u32>) {
    let mut rng = Rng::new(282);
    let mut adj: Vec<Vec<u32>> = vec![Vec::new(); n];
    for i in 0..n {
        let k = 2 + (rng.next_u64() % 3) as usize;
        for _ in 0..k {
            let j = (rng.next_u64() % n as u64) as usize;
            adj[i].push(j as u32);
            adj[j].push(i as u32);
        }
    }
    let mut nodes = Vec::with_capacity(n);
    let mut edges = Vec::new();
    for a in &adj {
        nodes.push(Node { starting: edges.len() as u32, no_of_edges: a.len() as u32 });
        edges.extend_from_slice(a);
    }
    (nodes, edges)
}

/// Levels from the source by a plain queue BFS (-1: unreachable).
fn host_bfs(nodes: &[Node], edges: &[u32], source: usize) -> Vec<i32> {
    let mut cost = vec![-1i32; nodes.len()];
    let mut queue = std::collections::VecDeque::from([source]);
    cost[source] = 0;
    while let Some(v) = queue.pop_front() {
        let nd = &nodes[v];
        for &u in &edges[nd.starting as usize..(nd.starting + nd.no_of_edges) as usize] {
            if cost[u as usize] < 0 {
                cost[u as usize] = cost[v] + 1;
                queue.push_back(u as usize);
            }
        }
    }
    cost
}

/// The graph and BFS state on the device.
pub struct Bfs {
    n: usize,
    host_nodes: Vec<Node>,
    host_edges: Vec<u32>,
    nodes: Buffer<Node>,
    edges: Buffer<u32>,
    mask: Buffer<u32>,
    updating: Buffer<u32>,
    visited: Buffer<u32>,
    cost: Buffer<i32>,
    over: Buffer<u32>,
    /// Kernel-2 launches of the last execution (BFS levels + 1).
    iterations: usize,
}

const SOURCE: usize = 0;

impl App for Bfs {
    const NAME: &'static str = "bfs";
    const ABOUT: &'static str = "Rodinia BFS: level-synchronous frontier expansion over a random CSR graph";
    const PAPER: PaperRow = PaperRow { race: true, injected: false, kind: "rw,ww", scope: "global" };
    const OURS: Option<PaperRow> = Some(PaperRow { race: true, injected: false, kind: "ww", scope: "global" });
    const DIFFERS: &'static str = "ww only: no invocation reads a word another writes in the same launch (frontier nodes are visited, written neighbours are not), so there is no read-write race to find; the paper's rw most likely comes from its 1-byte bool arrays sharing checked words (u32 flags here)";

    fn new(rt: &Runtime, flags: &Flags) -> ld::Result<Self> {
        let n = flags.scaled(1 << 17, 2 * THREADS as usize);
        let (host_nodes, host_edges) = graph(n);
        Ok(Bfs {
            n,
            nodes: rt.upload(&host_nodes)?,
            edges: rt.upload(&host_edges)?,
            mask: rt.zeros::<u32>(n)?,
            updating: rt.zeros::<u32>(n)?,
            visited: rt.zeros::<u32>(n)?,
            cost: rt.zeros::<i32>(n)?,
            over: rt.zeros::<u32>(1)?,
            host_nodes,
            host_edges,
            iterations: 0,
        })
    }

    fn run(&mut self, rt: &Runtime, flags: &Flags, mode: Mode) -> ld::Result<Vec<Report>> {
        // Rodinia's host set-up: only the source is in the frontier and visited.
        let mut init = vec![0u32; self.n];
        init[SOURCE] = 1;
        self.mask.write(&init)?;
        self.visited.write(&init)?;
        self.updating.write(&vec![0u32; self.n])?;
        let mut cost = vec![-1i32; self.n];
        cost[SOURCE] = 0;
        self.cost.write(&cost)?;
        let grid = Grid::cover(self.n as u64, THREADS);
        let n = self.n as u32;
        let mut reports = Vec::new();
        self.iterations = 0;
        loop {
            self.over.write(&[0])?;
            let b = &mut *self;
            let l = if flags.fixed {
                kernels::expand_fixed.launch(rt, grid, &b.nodes, &b.edges, &mut b.mask, &mut b.updating, &b.visited, &mut b.cost, n)
            } else {
                kernels::expand.launch(rt, grid, &b.nodes, &b.edges, &mut b.mask, &mut b.updating, &b.visited, &mut b.cost, n)
            };
            launch(l, flags, mode, &mut reports)?;
            let l = if flags.fixed {
                kernels::update_fixed.launch(rt, grid, &mut b.mask, &mut b.updating, &mut b.visited, &mut b.over, n)
            } else {
                kernels::update.launch(rt, grid, &mut b.mask, &mut b.updating, &mut b.visited, &mut b.over, n)
            };
            launch(l, flags, mode, &mut reports)?;
            self.iterations += 1;
            if self.over.to_vec()?[0] == 0 {
                break;
            }
        }
        Ok(reports)
    }

    fn verify(&self) -> ld::Result<Verified> {
        let out = self.cost.to_vec()?;
        let expected = host_bfs(&self.host_nodes, &self.host_edges, SOURCE);
        let wrong = out.iter().zip(&expected).filter(|(a, b)| a != b).count();
        let reached = expected.iter().filter(|&&c| c >= 0).count();
        let depth = expected.iter().max().copied().unwrap_or(0);
        Ok(Verified {
            ok: wrong == 0,
            detail: format!(
                "{} nodes, {} edges, {reached} reached in {depth} levels ({} kernel pairs); {wrong} levels differ from a host BFS",
                self.n,
                self.host_edges.len(),
                self.iterations
            ),
            checksum: bits_checksum(out.iter().map(|&c| c as u32)),
        })
    }
}
