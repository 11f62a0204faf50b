//! Access tokens at the front door (see [`crate::access`]): issued, listed and revoked by the
//! operator alone (a caller with the whole store), and the grant of a presented token.

use super::{Api, Caller};
use crate::access::{AccessToken, Grant, IssuedToken, NewToken};
use crate::error::Result;

impl Api {
    /// Issues a token; its text is in the answer and nowhere else.
    pub fn issue_token(&self, caller: &Caller, new: NewToken) -> Result<IssuedToken> {
        caller.access.whole_store("issuing a token")?;
        self.domains.tokens().issue(new)
    }

    /// Every token, revoked ones included, oldest first.
    pub fn tokens(&self, caller: &Caller) -> Result<Vec<AccessToken>> {
        caller.access.whole_store("listing tokens")?;
        self.domains.tokens().list()
    }

    /// Revokes token `id` (its 12-digit id); revoking it again changes nothing.
    pub fn revoke_token(&self, caller: &Caller, id: &str) -> Result<AccessToken> {
        caller.access.whole_store("revoking a token")?;
        self.domains.tokens().revoke(id)
    }

    /// The grant of a token's text as a client presented it; `None` when no live token has
    /// it. This is how a server decides a request's [`Access`](crate::access::Access).
    pub fn authenticate(&self, presented: &str) -> Result<Option<Grant>> {
        self.domains.tokens().authenticate(presented)
    }

    /// True once the store holds a live token: a server then needs one on every request.
    pub fn tokens_required(&self) -> Result<bool> {
        self.domains.tokens().required()
    }
}
