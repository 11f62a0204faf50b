//! Text for the token views (markdown shows the same text). A new token's text is printed alone
//! on its line, so `TOKEN=$(cairn token create …)` captures exactly it.

use std::fmt::Write as _;

use cairn_core::access::AccessToken;
use jiff::tz::TimeZone;

use super::{View, local_time};

pub fn render(view: &View<'_>, tz: &TimeZone) -> String {
    let mut out = String::new();
    match view {
        View::TokenIssued(issued) => {
            let _ = writeln!(out, "{}", issued.token);
        }
        View::Tokens([]) => {
            let _ = writeln!(
                out,
                "no access tokens: a server on this store serves loopback without one \
                 (`cairn token create --project NAME --read|--write` makes one)"
            );
        }
        View::Tokens(tokens) => {
            let width = tokens
                .iter()
                .map(|t| t.project.as_str().chars().count())
                .max()
                .unwrap_or(0);
            for token in tokens.iter() {
                let _ = writeln!(out, "{}", line(token, width, tz));
            }
        }
        View::TokenRevoked(token) => {
            let _ = writeln!(out, "revoked {}", line(token, 0, tz));
        }
        _ => unreachable!("only token views are rendered here"),
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
