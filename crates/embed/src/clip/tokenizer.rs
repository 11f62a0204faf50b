//! CLIP's text tokenizer: byte-level BPE, as CLIP's text tower was trained with.
//!
//! Text is cleaned (Unicode NFC, HTML entities decoded twice, runs of whitespace made one space,
//! trimmed, lower-cased) and split into pieces: the special tokens, English contractions (`'s`,
//! `'t`, `'re`, `'ve`, `'m`, `'ll`, `'d`), runs of letters, single digits, and runs of anything
//! else but whitespace. Each piece's UTF-8 bytes become printable characters (one per byte, a
//! fixed table), its last character gets the end-of-word mark `</w>`, and the pair of adjacent
//! symbols that ranks first among the merges is joined until none applies.
//!
//! The vocabulary follows from the merges alone: the 256 byte characters, the same with `</w>`,
//! one symbol per merge in rank order, then `<|startoftext|>` and `<|endoftext|>` (49,408 ids
//! for the 48,894 merges every CLIP model uses). The merges come from `merges.txt` of a Hugging
//! Face CLIP directory or from the gzipped `bpe_simple_vocab_16e6.txt.gz` that OpenAI's CLIP
//! and its ports ship; both start with a header line. A text given to the towers is framed by
//! the two special tokens in a context of [`CONTEXT`] ids (zeros after the end; a longer text
//! is cut and ends with `<|endoftext|>`).
//!
//! Not done: the mojibake repair of `ftfy` that OpenAI's cleaner applies first (text as agents
//! store it is already proper Unicode), and HTML entities beyond the numeric ones and the five
//! of XML plus `&nbsp;`.

use std::collections::HashMap;
use std::io::Read;
use std::path::Path;

use cairn_core::{Error, Result};
use regex::Regex;
use unicode_normalization::UnicodeNormalization;

/// Ids a CLIP text tower reads at once.
pub const CONTEXT: usize = 77;

/// How many merges CLIP's vocabulary uses (the files hold a few more).
pub const MERGES: usize = 49_152 - 256 - 2;

/// How many merges make a vocabulary of `size` ids: 256 byte symbols, the same 256 ending a
/// word, one per merge, and the two special tokens (`None` when `size` is below 514).
pub fn merges_for_vocabulary(size: usize) -> Option<usize> {
    size.checked_sub(2 * 256 + 2)
}

/// The end-of-word mark a piece's last symbol carries.
const END_OF_WORD: &str = "</w>";
const START: &str = "<|startoftext|>";
const END: &str = "<|endoftext|>";

/// The text of a merges file: `merges.txt`, or a gzipped `.txt.gz`.
pub fn merges_text(path: &Path) -> Result<String> {
    let source = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|e| refused(&source, e))?;
    if path.extension().is_some_and(|e| e == "gz") {
        let mut text = String::new();
        flate2::read::GzDecoder::new(bytes.as_slice())
            .read_to_string(&mut text)
            .map_err(|e| refused(&source, e))?;
        return Ok(text);
    }
    String::from_utf8(bytes).map_err(|e| refused(&source, e))
}

/// A merges file that cannot make CLIP's vocabulary, named with what is wrong.
fn refused(source: &str, what: impl std::fmt::Display) -> Error {
    Error::Model {
        message: format!("CLIP tokenizer merges {source}: {what}"),
    }
}

/// CLIP's tokenizer, built from its merges.
pub struct ClipTokenizer {
    /// Each merge's rank: lower merges first.
    ranks: HashMap<(String, String), usize>,
    ids: HashMap<String, u32>,
    /// The printable character each byte becomes.
    byte_chars: [char; 256],
    pieces: Regex,
    start: u32,
    end: u32,
}

impl ClipTokenizer {
    /// Reads CLIP's [`MERGES`] merges from `path`: `merges.txt`, or a gzipped `.txt.gz`.
    pub fn open(path: &Path) -> Result<Self> {
        Self::open_with(path, MERGES)
    }

    /// Reads the first `merges` merges from `path`: a model of vocabulary size `v` has `v −
    /// 514` ([`merges_for_vocabulary`]).
    pub fn open_with(path: &Path, merges: usize) -> Result<Self> {
        Self::from_merges(&merges_text(path)?, &path.display().to_string(), merges)
    }

    /// Builds the tokenizer from the first `merges` merges of a merges file's text (`source`
    /// names it in errors).
    pub fn from_merges(text: &str, source: &str, merges: usize) -> Result<Self> {
        let byte_chars = byte_chars();
        let mut vocabulary: Vec<String> = byte_order()
            .iter()
            .map(|&b| byte_chars[b as usize].to_string())
            .collect();
        let with_end: Vec<String> = vocabulary
            .iter()
            .map(|s| format!("{s}{END_OF_WORD}"))
            .collect();
        vocabulary.extend(with_end);
        let mut ranks = HashMap::with_capacity(merges);
        // The first line is a header (`#version: 0.2`, or the file's name).
        for (index, line) in text.lines().enumerate().skip(1).take(merges) {
            let mut symbols = line.split(' ');
            let (Some(first), Some(second), None) =
                (symbols.next(), symbols.next(), symbols.next())
            else {
                return Err(refused(
                    source,
                    format!("line {} is not a merge of two symbols: {line:?}", index + 1),
                ));
            };
            vocabulary.push(format!("{first}{second}"));
            ranks.insert((first.to_string(), second.to_string()), ranks.len());
        }
        if ranks.len() < merges {
            return Err(refused(
                source,
                format!(
                    "{} merges; the model's vocabulary needs {merges}",
                    ranks.len()
                ),
            ));
        }
        vocabulary.push(START.to_string());
        vocabulary.push(END.to_string());
        let ids: HashMap<String, u32> = vocabulary
            .into_iter()
            .enumerate()
            .map(|(id, symbol)| (symbol, id as u32))
            .collect();
        let pieces = Regex::new(
            r"(?i)<\|startoftext\|>|<\|endoftext\|>|'s|'t|'re|'ve|'m|'ll|'d|\p{L}+|\p{N}|[^\s\p{L}\p{N}]+",
        )
        .expect("the piece pattern compiles");
        Ok(ClipTokenizer {
            start: ids[START],
            end: ids[END],
            ranks,
            ids,
            byte_chars,
            pieces,
        })
    }

    /// The ids of `text`, without the framing tokens.
    pub fn encode(&self, text: &str) -> Vec<u32> {
        let cleaned = clean(text);
        let mut ids = Vec::new();
        for piece in self.pieces.find_iter(&cleaned) {
            let piece = piece.as_str();
            if piece == START || piece == END {
                ids.push(self.ids[piece]);
                continue;
            }
            let symbols: String = piece.bytes().map(|b| self.byte_chars[b as usize]).collect();
            for symbol in self.merged(&symbols) {
                // Every symbol a merge makes is in the vocabulary, by construction.
                ids.push(self.ids[&symbol]);
            }
        }
        ids
    }

    /// `text` as a CLIP text tower reads it: `<|startoftext|>`, its ids, `<|endoftext|>`, then
    /// zeros to [`CONTEXT`]; a longer text is cut so that it still ends with `<|endoftext|>`.
    pub fn framed(&self, text: &str) -> [u32; CONTEXT] {
        let mut framed = [0; CONTEXT];
        let ids = self.encode(text);
        let kept = ids.len().min(CONTEXT - 2);
        framed[0] = self.start;
        framed[1..=kept].copy_from_slice(&ids[..kept]);
        framed[kept + 1] = self.end;
        framed
    }

    /// Where the text ends in a framed sequence: CLIP pools its text tower there.
    pub fn end_of_text(&self, framed: &[u32]) -> usize {
        framed
            .iter()
            .position(|&id| id == self.end)
            .unwrap_or(framed.len() - 1)
    }

    /// One piece (already byte characters) as merged symbols, the last one ending the word.
    fn merged(&self, piece: &str) -> Vec<String> {
        let mut symbols: Vec<String> = piece.chars().map(String::from).collect();
        if let Some(last) = symbols.last_mut() {
            last.push_str(END_OF_WORD);
        }
        while symbols.len() > 1 {
            let best = symbols
                .windows(2)
                .enumerate()
                .filter_map(|(at, pair)| {
                    self.ranks
                        .get(&(pair[0].clone(), pair[1].clone()))
                        .map(|&rank| (rank, at))
                })
                .min();
            let Some((_, at)) = best else {
                break;
            };
            // Join every occurrence of that pair, left to right.
            let (first, second) = (symbols[at].clone(), symbols[at + 1].clone());
            let mut joined = Vec::with_capacity(symbols.len());
            let mut at = 0;
            while at < symbols.len() {
                if at + 1 < symbols.len() && symbols[at] == first && symbols[at + 1] == second {
                    joined.push(format!("{first}{second}"));
                    at += 2;
                } else {
                    joined.push(std::mem::take(&mut symbols[at]));
                    at += 1;
                }
            }
            symbols = joined;
        }
        symbols
    }
}

/// The bytes in vocabulary order: the printable ones as they are, then the rest.
fn byte_order() -> Vec<u8> {
    let mut order: Vec<u8> = (0..=255u8).filter(|&b| printable(b)).collect();
    order.extend((0..=255u8).filter(|&b| !printable(b)));
    order
}

/// Bytes that stand for themselves: `!`–`~`, `¡`–`¬`, `®`–`ÿ`.
fn printable(byte: u8) -> bool {
    matches!(byte, b'!'..=b'~' | 0xA1..=0xAC | 0xAE..=0xFF)
}

/// The character each byte becomes: itself when printable, else the next unused code point
/// from U+0100 on, in byte order.
fn byte_chars() -> [char; 256] {
    let mut chars = ['\0'; 256];
    let mut next = 256u32;
    for byte in 0..=255u8 {
        chars[byte as usize] = if printable(byte) {
            char::from(byte)
        } else {
            next += 1;
            char::from_u32(next - 1).expect("below the surrogates")
        };
    }
    chars
}

/// NFC, entities decoded twice, whitespace runs as one space, trimmed, lower-cased.
fn clean(text: &str) -> String {
    let normal: String = text.nfc().collect();
    let decoded = unescape(&unescape(&normal));
    decoded
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// HTML character references: numeric ones, the five of XML, `&nbsp;`.
fn unescape(text: &str) -> String {
    if !text.contains('&') {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('&') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        let decoded = after.find(';').filter(|&end| end <= 10).and_then(|end| {
            let name = &after[..end];
            let ch = match name {
                "amp" => Some('&'),
                "lt" => Some('<'),
                "gt" => Some('>'),
                "quot" => Some('"'),
                "apos" => Some('\''),
                "nbsp" => Some('\u{a0}'),
                _ => name.strip_prefix('#').and_then(|number| {
                    let code = match number.strip_prefix(['x', 'X']) {
                        Some(hex) => u32::from_str_radix(hex, 16).ok(),
                        None => number.parse().ok(),
                    };
                    code.and_then(char::from_u32)
                }),
            };
            ch.map(|ch| (ch, end))
        });
        match decoded {
            Some((ch, end)) => {
                out.push(ch);
                rest = &after[end + 1..];
            }
            None => {
                out.push('&');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_byte_has_its_own_printable_character() {
        let chars = byte_chars();
        let distinct: std::collections::HashSet<char> = chars.iter().copied().collect();
        assert_eq!(distinct.len(), 256);
        assert_eq!(chars[b'a' as usize], 'a');
        assert_eq!(
            chars[b' ' as usize], 'Ġ',
            "the space is the 33rd byte moved up: U+0120"
        );
        assert!(chars.iter().all(|c| !c.is_whitespace() && !c.is_control()));
    }

    #[test]
    fn entities_are_decoded_and_unknown_ones_left_alone() {
        assert_eq!(
            unescape("Tom &amp; Jerry &lt;b&gt; &#233;&#x41;"),
            "Tom & Jerry <b> éA"
        );
        assert_eq!(unescape("a & b &unknown; &amp"), "a & b &unknown; &amp");
        assert_eq!(clean("  Ünïcode\t\tTEXT &amp;amp; \n"), "ünïcode text &");
    }

    #[test]
    fn a_file_with_too_few_merges_is_refused_naming_it() {
        let refused = ClipTokenizer::from_merges("#version: 0.2\ni n\nt h\n", "merges.txt", MERGES);
        let message = refused.err().expect("refused").to_string();
        assert!(
            message.contains("merges.txt: 2 merges; the model's vocabulary needs 48894"),
            "{message}"
        );
        // A small model needs only its own: two merges make a vocabulary of 516.
        let small = ClipTokenizer::from_merges("#version: 0.2\ni n\nt h\n", "merges.txt", 2);
        assert_eq!(merges_for_vocabulary(516), Some(2));
        // "th" is the second merge (513); "in" does not apply before a word's end ("n</w>").
        assert_eq!(small.unwrap().encode("thin"), [513, 72, 333]);
        let malformed = ClipTokenizer::from_merges("#version: 0.2\nin\n", "merges.txt", 1);
        let message = malformed.err().expect("refused").to_string();
        assert!(message.contains("line 2"), "{message}");
    }
}
