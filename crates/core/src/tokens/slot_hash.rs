//! Where a token's bytes sit in the rank table: one hash, shared by the build script that lays
//! the table out (`build.rs` includes this file) and the counter that reads it, so the two
//! cannot disagree.

/// The slot of `bytes` in a table of `2^bits` slots (FNV-1a, then a multiplicative mix whose
/// top bits pick the slot).
pub fn slot_of(bytes: &[u8], bits: u32) -> usize {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for &byte in bytes {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    (hash.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> (64 - bits)) as usize
}
