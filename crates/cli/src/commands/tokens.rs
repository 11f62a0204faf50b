//! `cairn token`: issue, list and revoke the access tokens a shared server checks (see
//! `cairn_core::access`).

use anyhow::Result;
use cairn_core::ProjectName;
use cairn_core::access::{NewToken, Right};

use crate::app::App;
use crate::args::{Format, TokenCommand};
use crate::outcome::Outcome;
use crate::output::{TokenView, View};

pub fn run(app: &App, command: &TokenCommand) -> Result<Outcome> {
    let operator = app.operator();
    match command {
        TokenCommand::Create(args) => {
            let issued = app.api.issue_token(
                &operator,
                NewToken {
                    project: ProjectName::new(&args.project)?,
                    right: if args.write {
                        Right::Write
                    } else {
                        Right::Read
                    },
                    name: args.name.clone(),
                },
            )?;
            app.out
                .print(&View::Token(TokenView::TokenIssued(&issued)))?;
            if app.out.format() == Format::Text {
                app.out.notice(&format!(
                    "token {} {} project '{}'. It is shown only now: cairn keeps only its hash. \
                     Clients send `Authorization: Bearer <token>`.",
                    issued.record.id,
                    match issued.record.right {
                        Right::Read => "reads",
                        Right::Write => "reads and writes",
                    },
                    issued.record.project
                ));
            }
        }
        TokenCommand::List => {
            let tokens = app.api.tokens(&operator)?;
            app.out.print(&View::Token(TokenView::Tokens(&tokens)))?;
        }
        TokenCommand::Revoke(args) => {
            let token = app.api.revoke_token(&operator, &args.id)?;
            app.out
                .print(&View::Token(TokenView::TokenRevoked(&token)))?;
        }
    }
    Ok(Outcome::Done)
}
