//! Any bytes as an HNSW index file, loaded the way cairn loads a file it did not just write
//! (`cairn_store_sqlite::index_file::load`: every byte of the structure checked before usearch
//! reads it), then searched: refused, or a graph every search stays inside — never a crash.
#![no_main]

use cairn_store_sqlite::index_file;
use libfuzzer_sys::fuzz_target;
use usearch::{Index, IndexOptions, MetricKind, ScalarKind};

fn options() -> IndexOptions {
    IndexOptions {
        dimensions: 8,
        metric: MetricKind::IP,
        quantization: ScalarKind::I8,
        connectivity: 4,
        expansion_add: 16,
        expansion_search: 16,
        multi: false,
    }
}

fuzz_target!(|data: &[u8]| {
    let layout = index_file::layout_of(&options()).expect("a layout");
    let index = Index::new(&options()).expect("an index");
    if index_file::load(&index, data, &layout).is_ok() {
        for query in [[1.0f32; 8], [-0.5; 8]] {
            let _ = index.search(&query, 10);
        }
    }
});
