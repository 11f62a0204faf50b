//! Text for the token views (markdown shows the same text). A new token's text is printed alone
//! on its line, so `TOKEN=$(cairn token create …)` captures exactly it.

use std::fmt::Write as _;

use cairn_core::access::AccessToken;
use cairn_core::access::IssuedToken;
use jiff::tz::TimeZone;

use super::local_time;

/// Token views: access tokens issued, listed and revoked.
pub enum TokenView<'a> {
    /// A token just made: its text, shown this once.
    TokenIssued(&'a IssuedToken),
    Tokens(&'a [AccessToken]),
    TokenRevoked(&'a AccessToken),
}

pub fn render(view: &TokenView<'_>, tz: &TimeZone) -> String {
    let mut out = String::new();
    match view {
        TokenView::TokenIssued(issued) => {
            let _ = writeln!(out, "{}", issued.token);
        }
        TokenView::Tokens([]) => {
            let _ = writeln!(
                out,
                "no access tokens: a server on this store serves loopback without one \
                 (`cairn token create --project NAME --read|--write` makes one)"
            );
        }
        TokenView::Tokens(tokens) => {
            let width = tokens
                .iter()
                .map(|t| t.project.as_str().chars().count())
                .max()
                .unwrap_or(0);
            for token in tokens.iter() {
                let _ = writeln!(out, "{}", line(token, width, tz));
            }
        }
        TokenView::TokenRevoked(token) => {
            let _ = writeln!(out, "revoked {}", line(token, 0, tz));
        }
    }
    out
}

/// `3f9a0c1b2d4e  write  github.com/acme/api  2026-11-24 18:00  ci agent  (revoked …)`
fn line(token: &AccessToken, width: usize, tz: &TimeZone) -> String {
    let mut line = format!(
        "{}  {:<5}  {:<width$}  {}",
        token.id,
        token.right.as_str(),
        token.project.as_str(),
        local_time(token.created_at, tz),
    );
    if let Some(name) = &token.name {
        let _ = write!(line, "  {name}");
    }
    if let Some(revoked) = token.revoked_at {
        let _ = write!(line, "  (revoked {})", local_time(revoked, tz));
    }
    line
}
