//! Byte-pair merging inside one piece, over `cl100k_base`'s ranks.
//!
//! A piece starts as its bytes; the adjacent pair whose joined bytes have the lowest rank (the
//! leftmost on a tie) is merged, again and again, until no joined pair is a token. What is
//! left are the piece's tokens. The ranks are a table the build script laid out (token bytes,
//! their ends, an open-addressing hash of bytes to rank) and the library reads in place: no
//! loading, and only the pages a lookup touches are ever read.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::slot_hash::slot_of;

include!(concat!(env!("OUT_DIR"), "/cl100k_table.rs"));

/// Every token's bytes, in rank order.
static BYTES: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/cl100k_bytes.bin"));
/// Where each token's bytes end in [`BYTES`] (little-endian u32, by rank).
static ENDS: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/cl100k_ends.bin"));
/// The hash table: a rank per slot, `u32::MAX` for an empty one (little-endian u32).
static SLOTS: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/cl100k_slots.bin"));

const EMPTY: u32 = u32::MAX;

fn u32_at(table: &[u8], index: usize) -> u32 {
    let at = index * 4;
    u32::from_le_bytes(table[at..at + 4].try_into().expect("four bytes"))
}

/// The bytes of the token of `rank`.
fn token(rank: u32) -> &'static [u8] {
    let rank = rank as usize;
    let start = if rank == 0 { 0 } else { u32_at(ENDS, rank - 1) } as usize;
    &BYTES[start..u32_at(ENDS, rank) as usize]
}

/// The rank of the token whose bytes are `bytes`, if there is one.
fn rank(bytes: &[u8]) -> Option<u32> {
    let mask = (1 << SLOT_BITS) - 1;
    let mut slot = slot_of(bytes, SLOT_BITS);
    loop {
        match u32_at(SLOTS, slot) {
            EMPTY => return None,
            rank if token(rank) == bytes => return Some(rank),
            _ => slot = (slot + 1) & mask,
        }
    }
}

/// How many tokens the piece `bytes` becomes.
pub(super) fn count(bytes: &[u8]) -> usize {
    if bytes.len() <= 1 || rank(bytes).is_some() {
        return bytes.len().min(1);
    }
    if bytes.len() <= SHORT {
        count_short(bytes)
    } else {
        count_long(bytes)
    }
}

/// Pieces up to this many bytes (nearly all: a word, a number, a run of spaces) merge in
/// arrays on the stack, by a scan for the lowest rank; longer ones through a heap.
const SHORT: usize = 48;

/// [`count`] for a piece of at most [`SHORT`] bytes: the parts' starts and the rank of each
/// part joined with the next, in arrays, the lowest found by a scan (the leftmost on a tie).
fn count_short(bytes: &[u8]) -> usize {
    let n = bytes.len();
    // starts[..=parts] are the parts' starts and the end; ranks[i] joins part i and i + 1.
    let mut starts = [0u8; SHORT + 1];
    let mut ranks = [EMPTY; SHORT];
    for (i, start) in starts.iter_mut().enumerate().take(n + 1) {
        *start = i as u8;
    }
    let mut parts = n;
    let joined = |starts: &[u8], parts: usize, i: usize| {
        if i + 1 < parts {
            rank(&bytes[starts[i] as usize..starts[i + 2] as usize]).unwrap_or(EMPTY)
        } else {
            EMPTY
        }
    };
    for (i, rank) in ranks.iter_mut().enumerate().take(parts) {
        *rank = joined(&starts, parts, i);
    }
    loop {
        let (i, &lowest) = ranks[..parts]
            .iter()
            .enumerate()
            .min_by_key(|&(i, &r)| (r, i))
            .expect("at least one part");
        if lowest == EMPTY {
            return parts;
        }
        // Part i + 1 joins part i.
        starts.copy_within(i + 2..=parts, i + 1);
        ranks.copy_within(i + 2..parts, i + 1);
        parts -= 1;
        ranks[i] = joined(&starts, parts, i);
        if i > 0 {
            ranks[i - 1] = joined(&starts, parts, i - 1);
        }
    }
}

/// [`count`] for a longer piece, where a scan per merge would be quadratic.
fn count_long(bytes: &[u8]) -> usize {
    // The parts, as a linked list over the byte positions where they start.
    let n = bytes.len();
    let mut next: Vec<usize> = (1..=n).collect();
    let mut previous: Vec<usize> = (0..n).map(|i| i.wrapping_sub(1)).collect();
    // The merge of the part at `left` with the one after it: its rank, and where it starts.
    let pair = |next: &[usize], left: usize| {
        let right = next[left];
        let end = if right < n { next[right] } else { return None };
        rank(&bytes[left..end]).map(|rank| Reverse((rank, left)))
    };
    // Candidate merges, lowest rank first; one whose parts have changed since is skipped.
    let mut merges: BinaryHeap<_> = (0..n).filter_map(|left| pair(&next, left)).collect();
    let mut parts = n;
    while let Some(candidate) = merges.pop() {
        let Reverse((_, left)) = candidate;
        let right = next[left];
        if right >= n || previous[right] != left || pair(&next, left) != Some(candidate) {
            continue;
        }
        // Join the right part into the left one, then queue the pairs it now forms.
        let end = next[right];
        next[left] = end;
        previous[right] = usize::MAX;
        if end < n {
            previous[end] = left;
        }
        parts -= 1;
        let before = previous[left];
        merges.extend(
            (before != usize::MAX)
                .then(|| pair(&next, before))
                .flatten(),
        );
        merges.extend(pair(&next, left));
    }
    parts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_holds_every_token_once() {
        let tokens = (ENDS.len() / 4) as u32;
        assert!(
            tokens > 100_000,
            "cl100k_base has 100,256 tokens, the table {tokens}"
        );
        for r in (0..tokens).step_by(97).chain([tokens - 1]) {
            assert_eq!(rank(token(r)), Some(r), "token {r}: {:?}", token(r));
        }
        assert!(rank(b" hello").is_some());
        assert_eq!(rank(b"zzzzqqqqxxxx"), None);
    }

    #[test]
    fn pieces_merge_to_their_tokens() {
        assert_eq!(count(b""), 0);
        assert_eq!(count(b"x"), 1);
        assert_eq!(count(b" hello"), 1);
        // Bytes that form no token stay one each.
        assert_eq!(count(&[0xff, 0xfe, 0xfd]), 3);
        let reference = &bpe_openai::cl100k_base().bpe;
        for piece in [
            "kuberntesdokcer".as_bytes(),
            "Supercalifragilisticexpialidocious".as_bytes(),
            "ZmxhZyBpcyBub3QgYSB0b2tlbgo9PT09IGJhc2U2NCBibG9iIHdpdGhvdXQgc3BhY2Vz".as_bytes(),
            &"ab".repeat(5_000).into_bytes(),
            " 日本語のテキスト".as_bytes(),
        ] {
            assert_eq!(count(piece), reference.count(piece), "{piece:?}");
        }
    }

    #[test]
    fn short_and_long_pieces_merge_alike() {
        let text = include_str!("split.rs");
        for piece in super::super::split::pieces(text).map(str::as_bytes) {
            if (2..=SHORT).contains(&piece.len()) {
                assert_eq!(count_short(piece), count_long(piece), "{piece:?}");
            }
        }
        for word in [
            "kuberntesdokcer",
            "Supercalifragilisticexpialidocious",
            "ſtraße",
        ] {
            let piece = word.as_bytes();
            assert_eq!(count_short(piece), count_long(piece), "{word}");
        }
    }
}
