//! Rodinia b+tree findK as an `App` (see `samples/bplustree.rs` for the program and its race).

use crate::common::app::{launch, App, Flags, PaperRow, Verified};
use crate::common::{bits_checksum, Rng};
use ld::{Buffer, Mode, Report, Runtime};

#[path = "../kernels/bplustree.rs"]
pub mod kernels;

const SLOTS: usize = 257;

/// A node as Rodinia's `knode` (the device gets the two arrays flattened).
#[derive(Clone)]
struct Knode {
    keys: [i32; SLOTS],
    indices: [i32; SLOTS],
}

/// Keys per node when the tree is bulk-loaded (order 256, ~80% full).
const FILL: usize = 200;

/// A B+ tree bulk-loaded from sorted keys into Rodinia's node arrays.
struct Tree {
    nodes: Vec<Knode>,
    root: i32,
    height: u32,
}

fn build(sorted_keys: &[i32], record_of: &[i32]) -> Tree {
    let mut nodes = Vec::new();
    let empty = || Knode { keys: [i32::MAX; 257], indices: [0; 257] };
    // Leaves: (node index, min key).
    let mut level: Vec<(i32, i32)> = Vec::new();
    for (c, chunk) in sorted_keys.chunks(FILL).enumerate() {
        let mut n = empty();
        for (t, &k) in chunk.iter().enumerate() {
            n.keys[t] = k;
            n.indices[t] = record_of[c * FILL + t];
        }
        level.push((nodes.len() as i32, chunk[0]));
        nodes.push(n);
    }
    let mut height = 0;
    while level.len() > 1 {
        let mut up = Vec::new();
        for chunk in level.chunks(FILL) {
            let mut n = empty();
            for (t, &(child, min)) in chunk.iter().enumerate() {
                n.keys[t] = min;
                n.indices[t] = child;
            }
            up.push((nodes.len() as i32, chunk[0].1));
            nodes.push(n);
        }
        level = up;
        height += 1;
    }
    Tree { root: level[0].0, nodes, height }
}

/// Host lookup: descend by binary search, as a B+ tree does.
fn lookup(t: &Tree, records: &[i32], key: i32) -> i32 {
    let mut node = t.root as usize;
    for _ in 0..t.height {
        let n = &t.nodes[node];
        let slots = n.keys.iter().take_while(|&&k| k != i32::MAX).count();
        let pos = n.keys[..slots].partition_point(|&k| k <= key);
        if pos == 0 {
            return -1;
        }
        node = n.indices[pos - 1] as usize;
    }
    let n = &t.nodes[node];
    match n.keys.iter().position(|&k| k == key) {
        Some(t) => records[n.indices[t] as usize],
        None => -1,
    }
}

pub struct BPlusTree {
    tree: Tree,
    records_host: Vec<i32>,
    queries: Vec<i32>,
    node_keys: Buffer<i32>,
    node_indices: Buffer<i32>,
    records: Buffer<i32>,
    curr: Buffer<i32>,
    offset: Buffer<i32>,
    keys: Buffer<i32>,
    ans: Buffer<i32>,
}

impl App for BPlusTree {
    const NAME: &'static str = "bplustree";
    const ABOUT: &'static str = "Rodinia b+tree findK (one query per workgroup)";
    const PAPER: PaperRow = PaperRow { race: true, injected: false, kind: "ww", scope: "global" };
    const OURS: Option<PaperRow> = Some(PaperRow { race: true, injected: false, kind: "rw", scope: "global" });
    const DIFFERS: &'static str = "CUDA's __syncthreads() also orders global memory, WGSL's workgroupBarrier does not: the literal port races read-write on storage across the barrier; with distinct keys one invocation writes each word, so no write-write race is visible";

    fn new(rt: &Runtime, flags: &Flags) -> ld::Result<Self> {
        let n = flags.scaled(1_000_000, 1000);
        let q = flags.scaled(10_000, 64);
        let mut rng = Rng::new(2011);
        // Distinct keys: a random increasing sequence.
        let mut sorted = Vec::with_capacity(n);
        let mut k = 0i32;
        for _ in 0..n {
            k += 1 + (rng.next_u64() % 7) as i32;
            sorted.push(k);
        }
        // Records in insertion (shuffled) order; record_of[i] = the record of sorted[i].
        let mut record_of: Vec<i32> = (0..n as i32).collect();
        for i in (1..n).rev() {
            record_of.swap(i, (rng.next_u64() % (i as u64 + 1)) as usize);
        }
        let mut records_host = vec![0i32; n];
        for i in 0..n {
            records_host[record_of[i] as usize] = sorted[i].wrapping_mul(3) ^ 0x5a5a;
        }
        let tree = build(&sorted, &record_of);
        // Queries: 7 in 8 are keys in the tree, the rest random (mostly absent).
        let queries: Vec<i32> =
            (0..q)
                .map(|_| {
                    if !rng.next_u64().is_multiple_of(8) {
                        sorted[(rng.next_u64() % n as u64) as usize]
                    } else {
                        (rng.next_u64() % (k as u64 + 10)) as i32 - 5
                    }
                })
                .collect();
        Ok(BPlusTree {
            node_keys: rt.upload(&tree.nodes.iter().flat_map(|n| n.keys).collect::<Vec<_>>())?,
            node_indices: rt.upload(&tree.nodes.iter().flat_map(|n| n.indices).collect::<Vec<_>>())?,
            records: rt.upload(&records_host)?,
            curr: rt.zeros(q)?,
            offset: rt.zeros(q)?,
            keys: rt.upload(&queries)?,
            ans: rt.zeros(q)?,
            tree,
            records_host,
            queries,
        })
    }

    fn run(&mut self, rt: &Runtime, flags: &Flags, mode: Mode) -> ld::Result<Vec<Report>> {
        let q = self.queries.len();
        // Rodinia's host: every query starts at the root, answers at -1.
        self.curr.write(&vec![self.tree.root; q])?;
        self.offset.write(&vec![self.tree.root; q])?;
        self.ans.write(&vec![-1; q])?;
        let mut reports = Vec::new();
        let l = kernels::find_k.launch(
            rt,
            q as u32,
            self.tree.height,
            &self.node_keys,
            &self.node_indices,
            &self.records,
            &mut self.curr,
            &mut self.offset,
            &self.keys,
            &mut self.ans,
            flags.fixed as u32,
        );
        launch(l, flags, mode, &mut reports)?;
        Ok(reports)
    }

    fn verify(&self) -> ld::Result<Verified> {
        let ans = self.ans.to_vec()?;
        let expect: Vec<i32> = self.queries.iter().map(|&k| lookup(&self.tree, &self.records_host, k)).collect();
        let wrong = ans.iter().zip(&expect).filter(|(a, b)| a != b).count();
        let found = expect.iter().filter(|&&e| e != -1).count();
        Ok(Verified {
            ok: wrong == 0,
            detail: format!(
                "{} records, {} nodes, height {}; {} queries ({found} found): {wrong} differ from a host B+ tree lookup",
                self.records_host.len(),
                self.tree.nodes.len(),
                self.tree.height + 1,
                self.queries.len()
            ),
            checksum: bits_checksum(ans.iter().map(|&x| x as u32)),
        })
    }
}
