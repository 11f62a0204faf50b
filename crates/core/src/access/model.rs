//! Access tokens: their ids, rights and secrets.
//!
//! A token's text is `cairn_<id>_<secret>`: the id (12 hex digits) is public — `cairn token
//! list` shows it and `cairn token revoke` takes it — and the secret is 64 hex digits from the
//! operating system's random source. The store keeps the SHA-256 of the whole text
//! ([`TokenHash`]), never the text.

use std::fmt;

use jiff::Timestamp;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::error::{Error, Result};
use crate::scope::ProjectName;

/// What a token allows in its project.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Right {
    /// Search, list and read.
    Read,
    /// Read, and store, change and forget.
    Write,
}

impl Right {
    pub fn as_str(self) -> &'static str {
        match self {
            Right::Read => "read",
            Right::Write => "write",
        }
    }

    /// The stored spelling back; anything else is a corrupt row.
    pub fn parse(raw: &str) -> Result<Right> {
        match raw {
            "read" => Ok(Right::Read),
            "write" => Ok(Right::Write),
            other => Err(Error::invalid(
                "right",
                format!("'{other}' is neither read nor write"),
            )),
        }
    }
}

impl fmt::Display for Right {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A token's public id: 12 lowercase hex digits.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(transparent)]
pub struct TokenId(String);

impl TokenId {
    pub const DIGITS: usize = 12;

    pub fn parse(raw: &str) -> Result<TokenId> {
        let id = raw.trim();
        if id.len() != Self::DIGITS || !id.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')) {
            return Err(Error::invalid(
                "id",
                format!(
                    "'{id}' is not a token id ({} lowercase hex digits, as `cairn token list` \
                     shows them)",
                    Self::DIGITS
                ),
            ));
        }
        Ok(TokenId(id.to_string()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for TokenId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// A token as the store keeps it (its secret is not kept).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AccessToken {
    pub id: TokenId,
    pub project: ProjectName,
    pub right: Right,
    /// Who or what it is for, as its creator wrote it.
    pub name: Option<String>,
    pub created_at: Timestamp,
    /// Set once revoked; a revoked token is refused.
    pub revoked_at: Option<Timestamp>,
}

/// The SHA-256 of a token's text.
#[derive(Clone, PartialEq, Eq)]
pub struct TokenHash([u8; 32]);

impl TokenHash {
    /// The hash of the text a client presented.
    pub fn of(text: &str) -> TokenHash {
        TokenHash(Sha256::digest(text.as_bytes()).into())
    }

    /// A stored hash back from its 64 hex digits; anything else is a corrupt row.
    pub fn from_hex(hex: &str) -> Result<TokenHash> {
        let bad = || Error::invalid("hash", "is not 64 hex digits");
        if hex.len() != 64 {
            return Err(bad());
        }
        let mut bytes = [0u8; 32];
        for (i, byte) in bytes.iter_mut().enumerate() {
            *byte = u8::from_str_radix(hex.get(2 * i..2 * i + 2).ok_or_else(bad)?, 16)
                .map_err(|_| bad())?;
        }
        Ok(TokenHash(bytes))
    }

    /// 64 lowercase hex digits, as the stores keep it.
    pub fn to_hex(&self) -> String {
        hex(&self.0)
    }
}

impl fmt::Debug for TokenHash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "TokenHash({})", self.to_hex())
    }
}

/// A token just issued: its text, to be shown once, and its record.
#[derive(Debug, Clone, Serialize)]
pub struct IssuedToken {
    /// The bearer token's text; only its hash is stored.
    pub token: String,
    #[serde(flatten)]
    pub record: AccessToken,
}

/// Fresh random id and secret: the text `cairn_<id>_<secret>` and its id.
pub(crate) fn fresh_token_text() -> Result<(TokenId, String)> {
    let mut bytes = [0u8; TokenId::DIGITS / 2 + 32];
    getrandom::fill(&mut bytes).map_err(|error| Error::Storage {
        message: format!("the operating system gave no random bytes for a token: {error}"),
        source: None,
    })?;
    let (id, secret) = bytes.split_at(TokenId::DIGITS / 2);
    let id = TokenId(hex(id));
    let text = format!("cairn_{id}_{}", hex(secret));
    Ok((id, text))
}

fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write;
    bytes.iter().fold(String::new(), |mut out, b| {
        let _ = write!(out, "{b:02x}");
        out
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fresh_token_names_its_id_and_carries_256_bits_of_secret() {
        let (id, text) = fresh_token_text().unwrap();
        let secret = text.strip_prefix(&format!("cairn_{id}_")).unwrap();
        assert_eq!(secret.len(), 64);
        assert!(secret.bytes().all(|b| b.is_ascii_hexdigit()));
        assert_eq!(TokenId::parse(id.as_str()).unwrap(), id);
        let (other, other_text) = fresh_token_text().unwrap();
        assert_ne!((id, text), (other, other_text));
    }

    #[test]
    fn token_ids_are_twelve_lowercase_hex_digits() {
        assert!(TokenId::parse(" 0123456789ab ").is_ok());
        for bad in [
            "",
            "0123456789a",
            "0123456789abc",
            "0123456789AB",
            "0123456789ag",
        ] {
            let error = TokenId::parse(bad).unwrap_err();
            assert_eq!(error.field(), Some("id"), "{bad}");
        }
    }

    #[test]
    fn a_hash_is_the_sha256_of_the_text() {
        assert_eq!(
            TokenHash::of("abc").to_hex(),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        let hash = TokenHash::of("abc");
        assert_eq!(TokenHash::from_hex(&hash.to_hex()).unwrap(), hash);
        assert!(TokenHash::from_hex("ab").is_err());
        assert!(TokenHash::from_hex(&"zz".repeat(32)).is_err());
    }
}
