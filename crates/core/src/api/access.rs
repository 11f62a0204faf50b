//! Access tokens at the front door (see [`crate::access`]): issued, listed and revoked by the
//! operator alone (a caller with the whole store), and the grant of a presented token.

use super::{Api, Caller};
use crate::access::{AccessToken, Grant, IssuedToken, NewToken};
use crate::audit::{AuditAction, Change};
use crate::error::Result;

impl Api {
    /// Issues a token; its text is in the answer and nowhere else.
    pub fn issue_token(&self, caller: &Caller, new: NewToken) -> Result<IssuedToken> {
        caller.access.whole_store("issuing a token")?;
        let issued = self.domains.tokens().issue(new)?;
        let token = &issued.record;
        let change = Change::new(AuditAction::TokenIssue, Some(&token.project))
            .of(&token.id)
            .saying(token.right.as_str());
        self.audited(caller, change);
        Ok(issued)
    }

    /// Every token, revoked ones included, oldest first.
    pub fn tokens(&self, caller: &Caller) -> Result<Vec<AccessToken>> {
        caller.access.whole_store("listing tokens")?;
        self.domains.tokens().list()
    }

    /// Revokes token `id` (its 12-digit id); revoking it again changes nothing.
    pub fn revoke_token(&self, caller: &Caller, id: &str) -> Result<AccessToken> {
        caller.access.whole_store("revoking a token")?;
        let token = self.domains.tokens().revoke(id)?;
        let change = Change::new(AuditAction::TokenRevoke, Some(&token.project)).of(&token.id);
        self.audited(caller, change);
        Ok(token)
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
