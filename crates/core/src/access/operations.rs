//! The token operations: issue, list, revoke, and authenticate a presented token.

use crate::access::check::Grant;
use crate::access::model::{AccessToken, IssuedToken, Right, TokenHash, TokenId, fresh_token_text};
use crate::clock::Clock;
use crate::error::{Error, Result};
use crate::scope::ProjectName;
use crate::store::{Store, in_transaction};

/// The longest name a token may carry.
pub const MAX_NAME_CHARS: usize = 200;

/// Tokens longer than this are not looked up: no issued token is near it.
const MAX_PRESENTED_BYTES: usize = 256;

/// A token to issue, as the operator asked for it.
#[derive(Debug, Clone, PartialEq)]
pub struct NewToken {
    pub project: ProjectName,
    pub right: Right,
    /// Who or what it is for; blank means none.
    pub name: Option<String>,
}

/// Access tokens over one store.
pub struct Tokens<'a> {
    store: &'a dyn Store,
    clock: &'a Clock,
}

impl<'a> Tokens<'a> {
    pub fn new(store: &'a dyn Store, clock: &'a Clock) -> Self {
        Tokens { store, clock }
    }

    /// Issues a token: its text is in the answer and nowhere else.
    pub fn issue(&self, new: NewToken) -> Result<IssuedToken> {
        let name = match new.name.as_deref().map(str::trim) {
            None | Some("") => None,
            Some(name) if name.chars().count() > MAX_NAME_CHARS => {
                return Err(Error::invalid(
                    "name",
                    format!("is longer than {MAX_NAME_CHARS} characters"),
                ));
            }
            Some(name) if name.chars().any(char::is_control) => {
                return Err(Error::invalid("name", "holds a control character"));
            }
            Some(name) => Some(name.to_string()),
        };
        let (id, text) = fresh_token_text()?;
        let record = AccessToken {
            id,
            project: new.project,
            right: new.right,
            name,
            created_at: self.clock.timestamp(),
            revoked_at: None,
        };
        let hash = TokenHash::of(&text);
        in_transaction(self.store, |tx| tx.insert_access_token(&record, &hash))?;
        Ok(IssuedToken {
            token: text,
            record,
        })
    }

    pub fn list(&self) -> Result<Vec<AccessToken>> {
        self.store.access_tokens()
    }

    /// Revokes token `id`; revoking a revoked token changes nothing.
    pub fn revoke(&self, id: &str) -> Result<AccessToken> {
        let id = TokenId::parse(id)?;
        let now = self.clock.timestamp();
        in_transaction(self.store, |tx| tx.revoke_access_token(&id, now))?.ok_or_else(|| {
            Error::Missing {
                field: "id".into(),
                message: format!("no token has the id {id}; `cairn token list` shows them"),
            }
        })
    }

    /// The grant of a presented token's text; `None` when no live token has that text.
    pub fn authenticate(&self, presented: &str) -> Result<Option<Grant>> {
        let presented = presented.trim();
        if presented.is_empty() || presented.len() > MAX_PRESENTED_BYTES {
            return Ok(None);
        }
        let found = self.store.access_token_by_hash(&TokenHash::of(presented))?;
        Ok(found
            .filter(|token| token.revoked_at.is_none())
            .map(|token| Grant {
                token: token.id,
                project: token.project,
                right: token.right,
            }))
    }

    /// True once the store holds a live token: a server then needs one on every request.
    pub fn required(&self) -> Result<bool> {
        self.store.has_access_tokens()
    }
}
