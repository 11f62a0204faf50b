//! Access tokens in SQLite (table of migration 17): a row per token, looked up by the hash of
//! its text (`hash`, unique); revoking sets `revoked_at`.

use cairn_core::access::{AccessStore, AccessToken, AccessTx, Right, TokenHash, TokenId};
use cairn_core::{ProjectName, Result};
use jiff::Timestamp;
use rusqlite::{Connection, OptionalExtension, Row, params};

use crate::SqliteStore;
use crate::columns::{corrupt, millis, time};
use crate::error::SqlResult;
use crate::tx::SqliteTx;

const TOKEN_COLUMNS: &str = "id, project, access, name, created_at, revoked_at";

fn token_from_row(row: &Row<'_>) -> rusqlite::Result<AccessToken> {
    Ok(AccessToken {
        id: TokenId::parse(&row.get::<_, String>(0)?).map_err(corrupt)?,
        project: ProjectName::new(&row.get::<_, String>(1)?).map_err(corrupt)?,
        right: Right::parse(&row.get::<_, String>(2)?).map_err(corrupt)?,
        name: row.get(3)?,
        created_at: time(row.get(4)?)?,
        revoked_at: row.get::<_, Option<i64>>(5)?.map(time).transpose()?,
    })
}

fn token_by_id(conn: &Connection, id: &TokenId) -> Result<Option<AccessToken>> {
    conn.prepare_cached(&format!(
        "SELECT {TOKEN_COLUMNS} FROM access_tokens WHERE id = ?1"
    ))
    .sql()?
    .query_row([id.as_str()], token_from_row)
    .optional()
    .sql()
}

impl AccessStore for SqliteStore {
    fn access_tokens(&self) -> Result<Vec<AccessToken>> {
        self.reader()
            .prepare_cached(&format!(
                "SELECT {TOKEN_COLUMNS} FROM access_tokens ORDER BY created_at, id"
            ))
            .sql()?
            .query_map([], token_from_row)
            .sql()?
            .collect::<rusqlite::Result<_>>()
            .sql()
    }

    fn access_token_by_hash(&self, hash: &TokenHash) -> Result<Option<AccessToken>> {
        self.reader()
            .prepare_cached(&format!(
                "SELECT {TOKEN_COLUMNS} FROM access_tokens WHERE hash = ?1"
            ))
            .sql()?
            .query_row([hash.to_hex()], token_from_row)
            .optional()
            .sql()
    }

    fn access_tokens_with_hashes(&self) -> Result<Vec<(AccessToken, TokenHash)>> {
        self.reader()
            .prepare_cached(&format!(
                "SELECT {TOKEN_COLUMNS}, hash FROM access_tokens ORDER BY created_at, id"
            ))
            .sql()?
            .query_map([], |row| {
                let hash = TokenHash::from_hex(&row.get::<_, String>(6)?).map_err(corrupt)?;
                Ok((token_from_row(row)?, hash))
            })
            .sql()?
            .collect::<rusqlite::Result<_>>()
            .sql()
    }

    fn has_access_tokens(&self) -> Result<bool> {
        self.reader()
            .prepare_cached("SELECT EXISTS (SELECT 1 FROM access_tokens WHERE revoked_at IS NULL)")
            .sql()?
            .query_row([], |row| row.get(0))
            .sql()
    }
}

impl AccessTx for SqliteTx<'_, '_> {
    fn insert_access_token(&mut self, token: &AccessToken, hash: &TokenHash) -> Result<()> {
        self.tx
            .prepare_cached(
                "INSERT INTO access_tokens (id, hash, project, access, name, created_at) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            )
            .sql()?
            .execute(params![
                token.id.as_str(),
                hash.to_hex(),
                token.project.as_str(),
                token.right.as_str(),
                token.name,
                millis(token.created_at),
            ])
            .sql()?;
        Ok(())
    }

    fn revoke_access_token(&mut self, id: &TokenId, at: Timestamp) -> Result<Option<AccessToken>> {
        self.tx
            .prepare_cached(
                "UPDATE access_tokens SET revoked_at = ?2 WHERE id = ?1 AND revoked_at IS NULL",
            )
            .sql()?
            .execute(params![id.as_str(), millis(at)])
            .sql()?;
        token_by_id(&self.tx, id)
    }
}
