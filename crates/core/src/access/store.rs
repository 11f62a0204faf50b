//! What a backend must provide for access tokens: [`AccessStore`] (reads) and [`AccessTx`]
//! (writes, inside one transaction). A backend keeps each token's record and the hash of its
//! text, looked up by that hash; never the text itself.

use jiff::Timestamp;

use crate::access::model::{AccessToken, TokenHash, TokenId};
use crate::error::Result;

/// The read side of token storage.
pub trait AccessStore: Send + Sync {
    /// Every token, revoked ones included, oldest first (ties by id).
    fn access_tokens(&self) -> Result<Vec<AccessToken>>;

    /// The token whose text hashes to `hash`, revoked or not.
    fn access_token_by_hash(&self, hash: &TokenHash) -> Result<Option<AccessToken>>;

    /// Every token with the hash of its text, oldest first: what a move between stores copies.
    fn access_tokens_with_hashes(&self) -> Result<Vec<(AccessToken, TokenHash)>>;

    /// True when at least one token is not revoked.
    fn has_access_tokens(&self) -> Result<bool>;
}

/// The write side of token storage, inside one transaction.
pub trait AccessTx {
    /// Adds a token; its id and hash are new (fresh random ones, or a moved token's).
    fn insert_access_token(&mut self, token: &AccessToken, hash: &TokenHash) -> Result<()>;

    /// Marks token `id` revoked at `at` unless it already is; the record as it now stands, or
    /// `None` when no token has that id.
    fn revoke_access_token(&mut self, id: &TokenId, at: Timestamp) -> Result<Option<AccessToken>>;
}
