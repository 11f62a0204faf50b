//! Any text as a markdown memory file: read into pieces that cover every byte, in order, and
//! never a panic (a file is rewritten by replacing pieces and copying the rest, so a byte no
//! piece covers would be lost).
#![no_main]

use cairn_core::files::unit;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let mut at = 0;
    for piece in unit::parse(text) {
        let span = piece.span();
        assert_eq!(span.start, at, "pieces are contiguous");
        assert!(span.end >= span.start && span.end <= text.len());
        at = span.end;
    }
    assert_eq!(at, text.len(), "the pieces cover the whole file");
});
