//! Content normalisation for duplicate detection.
//!
//! Two memories are duplicates when their contents are equal after lowercasing and collapsing
//! whitespace. The store indexes a 64-bit FNV-1a hash of the normalised text (stable across
//! platforms and versions, unlike `std`'s hasher); a hash match is always confirmed by comparing
//! the normalised texts, so a collision can never hide a memory.

/// Lowercases and collapses all runs of whitespace to one space, trimming the ends.
pub fn normalise_content(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for word in text.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        if word.is_ascii() {
            let start = out.len();
            out.push_str(word);
            out[start..].make_ascii_lowercase();
        } else {
            out.extend(word.chars().flat_map(char::to_lowercase));
        }
    }
    out
}

/// The duplicate-detection key of `text`: FNV-1a 64 over its normalised form.
pub fn content_hash(text: &str) -> i64 {
    const OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
    const PRIME: u64 = 0x0000_0100_0000_01b3;
    let hash = normalise_content(text).bytes().fold(OFFSET, |hash, byte| {
        (hash ^ u64::from(byte)).wrapping_mul(PRIME)
    });
    hash as i64
}

/// True when `a` and `b` are duplicates of each other.
pub fn same_content(a: &str, b: &str) -> bool {
    normalise_content(a) == normalise_content(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn case_and_whitespace_do_not_make_content_different() {
        assert_eq!(
            content_hash("Use  PNPM\n for installs "),
            content_hash("use pnpm for installs")
        );
        assert!(same_content("A b", "a\tB"));
        assert_ne!(content_hash("use pnpm"), content_hash("use npm"));
    }

    #[test]
    fn the_streaming_hash_equals_hashing_the_normalised_text() {
        for text in [
            "",
            "  Ünïcode  ẞ Straße\t\nİstanbul ",
            "one",
            "MiXeD   case\r\nlines",
        ] {
            let normalised = normalise_content(text);
            let expected = normalised.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
                (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
            });
            assert_eq!(content_hash(text), expected as i64, "{text:?}");
        }
    }

    #[test]
    fn hash_is_stable_across_releases() {
        // FNV-1a of the empty string is the offset basis; pinning it guards stored hashes.
        assert_eq!(content_hash("") as u64, 0xcbf2_9ce4_8422_2325);
        assert_eq!(content_hash("a") as u64, 0xaf63_dc4c_8601_ec8c);
    }
}
