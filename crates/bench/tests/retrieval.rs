//! Retrieval quality floors on real data nobody here wrote. The data lives outside the
//! repository (`../shared/bench-data/` beside the checkout, as in CI; `CAIRN_BENCH_DATA`
//! overrides); it is measured against, never copied in. Without it the test skips with a
//! message, unless `CAIRN_REQUIRE_BENCH_DATA=1` (set by CI), under which it fails.

use std::path::PathBuf;

/// The Cranfield collection's folder, or `None` (after saying so) when it is not there and not
/// required.
fn cranfield() -> Option<PathBuf> {
    let data = std::env::var_os("CAIRN_BENCH_DATA")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/bench-data")
        });
    let dir = data.join("cranfield");
    if dir.join("cran.all.1400").is_file() {
        return Some(dir);
    }
    assert!(
        std::env::var("CAIRN_REQUIRE_BENCH_DATA").as_deref() != Ok("1"),
        "CAIRN_REQUIRE_BENCH_DATA=1 but the Cranfield data is missing at {}; set \
         CAIRN_BENCH_DATA to the bench-data directory",
        dir.display()
    );
    eprintln!(
        "SKIPPED: the Cranfield data is not at {} (set CAIRN_BENCH_DATA to a bench-data \
         directory; CAIRN_REQUIRE_BENCH_DATA=1 makes this a failure)",
        dir.display()
    );
    None
}

#[test]
fn cranfield_lexical_search_scores_like_standard_bm25() {
    let Some(dir) = cranfield() else { return };
    let report = cairn_bench::cranfield::run(&dir, None).expect("cranfield runs");
    // Textbook BM25 reaches MAP ≈ 0.41 and nDCG@10 ≈ 0.51 here; lower means tokenisation or
    // scoring is wrong.
    assert_eq!(report.lexical.all_pairs.summary.queries, 225);
    assert!(
        report.lexical.all_pairs.map >= 0.40,
        "MAP {:.4}",
        report.lexical.all_pairs.map
    );
    assert!(
        report.lexical.all_pairs.ndcg_10 >= 0.50,
        "nDCG@10 {:.4}",
        report.lexical.all_pairs.ndcg_10
    );
}
