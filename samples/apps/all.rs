//! Every benchmark program of the paper, in Table VI's order, for the
//! commands and tests that run them all (`table6`, `tests/suite/samples.rs`).

#[path = "backprop.rs"]
pub mod backprop;
#[path = "bfs.rs"]
pub mod bfs;
#[path = "bisect_small.rs"]
pub mod bisect_small;
#[path = "bplustree.rs"]
pub mod bplustree;
#[path = "cocluster.rs"]
pub mod cocluster;
#[path = "em.rs"]
pub mod em;
#[path = "histogram64.rs"]
pub mod histogram64;
#[path = "kmeans.rs"]
pub mod kmeans;
#[path = "nbody.rs"]
pub mod nbody;
#[path = "radix_sort.rs"]
pub mod radix_sort;
#[path = "scan.rs"]
pub mod scan;

/// Calls `$m!(path::Type, test_name, small_size)` for every program.
macro_rules! for_each_app {
    ($m:ident) => {
        $m!(apps::scan::Scan, scan, 0.02);
        $m!(apps::histogram64::Histogram64, histogram64, 0.02);
        $m!(apps::bisect_small::BisectSmall, bisect_small, 0.02);
        $m!(apps::nbody::Nbody, nbody, 0.02);
        $m!(apps::radix_sort::RadixSort, radix_sort, 0.02);
        $m!(apps::bfs::Bfs, bfs, 0.02);
        $m!(apps::backprop::Backprop, backprop, 0.02);
        $m!(apps::bplustree::BPlusTree, bplustree, 0.02);
        $m!(apps::kmeans::Kmeans, kmeans, 0.02);
        $m!(apps::cocluster::Cocluster, cocluster, 0.02);
        $m!(apps::em::Em, em, 0.02);
    };
}
pub(crate) use for_each_app;
