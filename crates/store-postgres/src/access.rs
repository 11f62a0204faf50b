//! Access tokens in PostgreSQL (table of migration 2): a row per token, looked up by the hash
//! of its text (`hash`, unique); revoking sets `revoked_at`.

use cairn_core::access::{AccessStore, AccessToken, AccessTx, Right, TokenHash, TokenId};
use cairn_core::{ProjectName, Result};
use jiff::Timestamp;
use postgres::Row;

use crate::PostgresStore;
use crate::columns::{get, millis, optional_time, time};
use crate::error::{SqlResult, corrupt};
use crate::sql::Sql;
use crate::tx::PostgresTx;

const TOKEN_COLUMNS: &str = "id, project, access, name, created_at, revoked_at";

fn token_from_row(row: &Row) -> Result<AccessToken> {
    Ok(AccessToken {
        id: TokenId::parse(&get::<String>(row, 0)?).map_err(corrupt)?,
        project: ProjectName::new(&get::<String>(row, 1)?).map_err(corrupt)?,
        right: Right::parse(&get::<String>(row, 2)?).map_err(corrupt)?,
        name: get(row, 3)?,
        created_at: time(get(row, 4)?)?,
        revoked_at: optional_time(get(row, 5)?)?,
    })
}

fn one_token(client: &mut impl Sql, column: &str, value: &str) -> Result<Option<AccessToken>> {
    client
        .query_opt(
            &format!("SELECT {TOKEN_COLUMNS} FROM access_tokens WHERE {column} = $1"),
            &[&value],
        )
        .sql()?
        .map(|row| token_from_row(&row))
        .transpose()
}

impl AccessStore for PostgresStore {
    fn access_tokens(&self) -> Result<Vec<AccessToken>> {
        self.reader()?
            .query(
                &format!("SELECT {TOKEN_COLUMNS} FROM access_tokens ORDER BY created_at, id"),
                &[],
            )
            .sql()?
            .iter()
            .map(token_from_row)
            .collect()
    }

    fn access_token_by_hash(&self, hash: &TokenHash) -> Result<Option<AccessToken>> {
        one_token(&mut *self.reader()?, "hash", &hash.to_hex())
    }

    fn access_tokens_with_hashes(&self) -> Result<Vec<(AccessToken, TokenHash)>> {
        self.reader()?
            .query(
                &format!("SELECT {TOKEN_COLUMNS}, hash FROM access_tokens ORDER BY created_at, id"),
                &[],
            )
            .sql()?
            .iter()
            .map(|row| {
                let hash = TokenHash::from_hex(&get::<String>(row, 6)?).map_err(corrupt)?;
                Ok((token_from_row(row)?, hash))
            })
            .collect()
    }

    fn has_access_tokens(&self) -> Result<bool> {
        get(
            &self
                .reader()?
                .query_one(
                    "SELECT EXISTS (SELECT 1 FROM access_tokens WHERE revoked_at IS NULL)",
                    &[],
                )
                .sql()?,
            0,
        )
    }
}

impl AccessTx for PostgresTx<'_, '_> {
    fn insert_access_token(&mut self, token: &AccessToken, hash: &TokenHash) -> Result<()> {
        self.tx
            .execute(
                "INSERT INTO access_tokens (id, hash, project, access, name, created_at) \
                 VALUES ($1, $2, $3, $4, $5, $6)",
                &[
                    &token.id.as_str(),
                    &hash.to_hex(),
                    &token.project.as_str(),
                    &token.right.as_str(),
                    &token.name,
                    &millis(token.created_at),
                ],
            )
            .sql()?;
        Ok(())
    }

    fn revoke_access_token(&mut self, id: &TokenId, at: Timestamp) -> Result<Option<AccessToken>> {
        self.tx
            .execute(
                "UPDATE access_tokens SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL",
                &[&id.as_str(), &millis(at)],
            )
            .sql()?;
        one_token(&mut self.tx, "id", id.as_str())
    }
}
