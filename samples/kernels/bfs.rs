//! The BFS kernels (see `samples/bfs.rs`): Rodinia 2.4's `Kernel` and
//! `Kernel2`, and race-free versions of both.

#[ld::kernels]
pub mod bfs {
    /// A CSR node: its edges are `edges[starting..starting + no_of_edges]`.
    pub struct Node {
        pub starting: u32,
        pub no_of_edges: u32,
    }

    /// Rodinia's `Kernel`: every node of the frontier (`mask`) leaves it and
    /// visits its neighbours; an unvisited neighbour gets the next level
    /// and is marked for the next frontier. Two frontier nodes with a
    /// common unvisited neighbour both store its `cost` and `updating`
    /// (the same values): a write-write race.
    #[kernel(workgroup_size = 256)]
    pub fn expand(nodes: &[Node], edges: &[u32], mask: &mut [u32], updating: &mut [u32], visited: &[u32], cost: &mut [i32], no_of_nodes: u32) {
        let tid = global_id().x;
        if tid < no_of_nodes && mask[tid] == 1 {
            mask[tid] = 0;
            let node = nodes[tid];
            for i in node.starting..node.starting + node.no_of_edges {
                let id = edges[i];
                if visited[id] == 0 {
                    cost[id] = cost[tid] + 1;
                    updating[id] = 1;
                }
            }
        }
    }

    /// Rodinia's `Kernel2`: the marked nodes become the frontier and are
    /// visited; every one of them sets the `over` flag the host polls (a
    /// write-write race of identical values on `over[0]`).
    #[kernel(workgroup_size = 256)]
    pub fn update(mask: &mut [u32], updating: &mut [u32], visited: &mut [u32], over: &mut [u32], no_of_nodes: u32) {
        let tid = global_id().x;
        if tid < no_of_nodes && updating[tid] == 1 {
            mask[tid] = 1;
            visited[tid] = 1;
            over[0] = 1;
            updating[tid] = 0;
        }
    }

    /// `expand` without the race: the stores to a neighbour's `cost` and
    /// `updating` are atomic.
    #[kernel(workgroup_size = 256)]
    pub fn expand_fixed(nodes: &[Node], edges: &[u32], mask: &mut [u32], updating: &[AtomicU32], visited: &[u32], cost: &[AtomicI32], no_of_nodes: u32) {
        let tid = global_id().x;
        if tid < no_of_nodes && mask[tid] == 1 {
            mask[tid] = 0;
            let node = nodes[tid];
            let next = cost[tid].load() + 1;
            for i in node.starting..node.starting + node.no_of_edges {
                let id = edges[i];
                if visited[id] == 0 {
                    cost[id].store(next);
                    updating[id].store(1);
                }
            }
        }
    }

    /// `update` without the race: `over` is set by an atomic store.
    #[kernel(workgroup_size = 256)]
    pub fn update_fixed(mask: &mut [u32], updating: &mut [u32], visited: &mut [u32], over: &[AtomicU32], no_of_nodes: u32) {
        let tid = global_id().x;
        if tid < no_of_nodes && updating[tid] == 1 {
            mask[tid] = 1;
            visited[tid] = 1;
            over[0].store(1);
            updating[tid] = 0;
        }
    }
}

pub use bfs::{expand, expand_fixed, update, update_fixed, Node};

/// Invocations per workgroup (Rodinia's MAX_THREADS_PER_BLOCK as the paper ran it).
pub const THREADS: u32 = 256;
