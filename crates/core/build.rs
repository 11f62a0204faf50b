//! Lays out the `cl100k_base` tokenizer's data as tables the library reads in place, so that
//! counting tokens in a short-lived process (a SessionStart hook) costs nothing to load.
//!
//! - the token bytes in rank order, with each token's end offset;
//! - an open-addressing hash table from a token's bytes to its rank (`src/tokens/slot_hash.rs`,
//!   shared with the reader);
//! - the Unicode classes the pre-tokenizer splits by (`\p{L}`, `\p{N}`, `\s`), taken from the
//!   same regex-syntax tables the reference tokenizer's pattern is compiled with.
//!
//! The vocabulary comes from the `bpe-openai` crate (a build dependency), which ships it; the
//! unit tests compare every count with that crate's own tokenizer.

use std::fmt::Write as _;
use std::path::Path;

use regex_syntax::hir::{Class, HirKind};

#[path = "src/tokens/slot_hash.rs"]
mod slot_hash;

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-changed=src/tokens/slot_hash.rs");
    let out = std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR");
    let out = Path::new(&out);
    write_rank_table(out);
    write_unicode_classes(out);
}

/// `cl100k_bytes.bin`, `cl100k_ends.bin`, `cl100k_slots.bin` (little-endian u32s) and
/// `cl100k_table.rs` (the table's size).
fn write_rank_table(out: &Path) {
    let bpe = &bpe_openai::cl100k_base().bpe;
    let tokens = bpe.num_tokens();
    let mut bytes = Vec::new();
    let mut ends = Vec::with_capacity(tokens * 4);
    for rank in 0..tokens {
        bytes.extend_from_slice(bpe.token_bytes(rank as u32));
        ends.extend_from_slice(&(bytes.len() as u32).to_le_bytes());
    }
    // At most half full, so a lookup that misses stops after a probe or two.
    let bits = (tokens * 2).next_power_of_two().trailing_zeros();
    let mask = (1usize << bits) - 1;
    let mut slots = vec![u32::MAX; 1 << bits];
    for rank in 0..tokens {
        let mut slot = slot_hash::slot_of(bpe.token_bytes(rank as u32), bits);
        while slots[slot] != u32::MAX {
            slot = (slot + 1) & mask;
        }
        slots[slot] = rank as u32;
    }
    let slots: Vec<u8> = slots.iter().flat_map(|s| s.to_le_bytes()).collect();
    write(out, "cl100k_bytes.bin", &bytes);
    write(out, "cl100k_ends.bin", &ends);
    write(out, "cl100k_slots.bin", &slots);
    let table = format!(
        "/// The hash table has `2^SLOT_BITS` slots.\npub(super) const SLOT_BITS: u32 = {bits};\n"
    );
    write(out, "cl100k_table.rs", table.as_bytes());
}

/// `unicode_classes.rs`: the class of every ASCII character, and the sorted ranges of the
/// others that are letters, numbers or white space.
fn write_unicode_classes(out: &Path) {
    let mut ranges: Vec<(u32, u32, &str)> =
        [(r"\p{L}", "Letter"), (r"\p{N}", "Number"), (r"\s", "Space")]
            .into_iter()
            .flat_map(|(pattern, class)| {
                unicode_ranges(pattern)
                    .into_iter()
                    .map(move |(start, end)| (start, end, class))
            })
            .collect();
    ranges.sort_unstable();
    let class_of = |c: u32| {
        let class = ranges
            .iter()
            .find(|(start, end, _)| (*start..=*end).contains(&c))
            .map_or("Other", |r| r.2);
        match (class, c) {
            ("Space", 0x0a | 0x0d) => "LineBreak",
            (class, _) => class,
        }
    };
    let mut code = String::from("/// The class of each ASCII character.\n");
    code.push_str("pub(super) const ASCII: [Class; 128] = [\n");
    for c in 0..128 {
        writeln!(code, "    Class::{},", class_of(c)).unwrap();
    }
    code.push_str("];\n\n/// The other characters' classes, as sorted, disjoint ranges (first, last, class);\n");
    code.push_str("/// a character in none of them is `Other`.\n");
    code.push_str("pub(super) const RANGES: &[(u32, u32, Class)] = &[\n");
    for (start, end, class) in ranges.iter().filter(|r| r.1 >= 128) {
        writeln!(code, "    ({}, {end}, Class::{class}),", start.max(&128)).unwrap();
    }
    code.push_str("];\n");
    write(out, "unicode_classes.rs", code.as_bytes());
}

/// The ranges of a Unicode class as regex-syntax compiles it.
fn unicode_ranges(pattern: &str) -> Vec<(u32, u32)> {
    let hir = regex_syntax::parse(pattern).expect("a valid class");
    match hir.kind() {
        HirKind::Class(Class::Unicode(class)) => class
            .ranges()
            .iter()
            .map(|r| (u32::from(r.start()), u32::from(r.end())))
            .collect(),
        other => panic!("{pattern} compiled to {other:?}, not a Unicode class"),
    }
}

fn write(out: &Path, name: &str, contents: &[u8]) {
    std::fs::write(out.join(name), contents).unwrap_or_else(|e| panic!("writing {name}: {e}"));
}
