//! Any text as a search query: parsed, or refused with a message naming the query — never a
//! panic (a plain question is text, whatever code it holds).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    for strict in [false, true] {
        if let Err(error) = cairn_core::query::SearchQuery::parse(text, strict) {
            assert!(!error.to_string().is_empty());
        }
    }
});
