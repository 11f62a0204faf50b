//! Statements prepared once per connection. A statement sent as text is parsed and described by
//! the server before its values can follow: two round trips for every statement, and a plan
//! made anew each time. Each pooled connection here keeps the statements it has prepared, by
//! their text, so every later run of the same SQL is one round trip with a plan the server may
//! keep. Every read and write of the store goes through [`Sql`], on a connection
//! ([`CachedClient`]) or a transaction on one ([`CachedTx`]).
//!
//! SQL built with values inside (an index's dimensions, a filter's shape) is prepared once per
//! shape; the cache forgets everything when it holds [`MOST_STATEMENTS`], and forgets a
//! statement whose run failed (a cached plan the schema has moved under is prepared again).
//!
//! A prepared statement run a sixth time may be given a generic plan, one made without its
//! values, which the server keeps when it looks no costlier than the plans made for them. For a
//! search that is a trap: its words decide the best plan (a rare word wants the text index, a
//! common one does not), and a plan kept for the average word made keyword searches ten times
//! slower (`cairn-bench scale --store`, 100,000 memories, in one process: 262 ms against 24 ms
//! at the median). So reads are planned for their values every run ([`READ_PLANNING`], set on
//! every connection), and write transactions, whose inserts and lookups by key gain from a
//! kept plan, let the server keep them ([`WRITE_PLANNING`]).

use std::collections::HashMap;

use postgres::types::ToSql;
use postgres::{Client, Error, GenericClient, IsolationLevel, Row, Statement, Transaction};

/// Statements one connection keeps at most.
pub const MOST_STATEMENTS: usize = 512;

/// Set on every connection: statements are planned for the values of each run.
pub const READ_PLANNING: &str = "SET plan_cache_mode = force_custom_plan";

/// Set in every write transaction: the server may keep a statement's plan.
pub const WRITE_PLANNING: &str = "SET LOCAL plan_cache_mode = auto";

/// The statements one connection has prepared, by their SQL.
#[derive(Default)]
pub struct Statements {
    by_text: HashMap<String, Statement>,
}

impl Statements {
    /// Runs `sql` on `client` through its prepared statement (prepared now if new).
    fn run<C: GenericClient, R>(
        &mut self,
        client: &mut C,
        sql: &str,
        work: impl FnOnce(&mut C, &Statement) -> Result<R, Error>,
    ) -> Result<R, Error> {
        let statement = match self.by_text.get(sql) {
            Some(statement) => statement.clone(),
            None => {
                let statement = client.prepare(sql)?;
                if self.by_text.len() >= MOST_STATEMENTS {
                    self.by_text.clear();
                }
                self.by_text.insert(sql.to_string(), statement.clone());
                statement
            }
        };
        let result = work(client, &statement);
        if result.is_err() {
            self.by_text.remove(sql);
        }
        result
    }
}

/// Statement values as the client takes them.
pub type Values<'a> = &'a [&'a (dyn ToSql + Sync)];

/// What the store's SQL runs on: the `postgres` client's calls, each statement prepared once per
/// connection.
pub trait Sql {
    fn query(&mut self, sql: &str, params: Values<'_>) -> Result<Vec<Row>, Error>;
    /// Exactly one row, or an error.
    fn query_one(&mut self, sql: &str, params: Values<'_>) -> Result<Row, Error>;
    /// At most one row, or an error.
    fn query_opt(&mut self, sql: &str, params: Values<'_>) -> Result<Option<Row>, Error>;
    /// The number of rows changed.
    fn execute(&mut self, sql: &str, params: Values<'_>) -> Result<u64, Error>;
    /// Statements without parameters, sent as they are (never prepared).
    fn batch_execute(&mut self, sql: &str) -> Result<(), Error>;
}

/// A client with the statements it keeps.
trait WithStatements {
    type Client: GenericClient;
    fn parts(&mut self) -> (&mut Self::Client, &mut Statements);
}

impl<T: WithStatements> Sql for T {
    fn query(&mut self, sql: &str, params: Values<'_>) -> Result<Vec<Row>, Error> {
        let (client, statements) = self.parts();
        statements.run(client, sql, |client, statement| {
            client.query(statement, params)
        })
    }

    fn query_one(&mut self, sql: &str, params: Values<'_>) -> Result<Row, Error> {
        let (client, statements) = self.parts();
        statements.run(client, sql, |client, statement| {
            client.query_one(statement, params)
        })
    }

    fn query_opt(&mut self, sql: &str, params: Values<'_>) -> Result<Option<Row>, Error> {
        let (client, statements) = self.parts();
        statements.run(client, sql, |client, statement| {
            client.query_opt(statement, params)
        })
    }

    fn execute(&mut self, sql: &str, params: Values<'_>) -> Result<u64, Error> {
        let (client, statements) = self.parts();
        statements.run(client, sql, |client, statement| {
            client.execute(statement, params)
        })
    }

    fn batch_execute(&mut self, sql: &str) -> Result<(), Error> {
        self.parts().0.batch_execute(sql)
    }
}

/// A connection and the statements it has prepared.
pub struct CachedClient {
    client: Client,
    statements: Statements,
}

impl CachedClient {
    pub fn new(client: Client) -> Self {
        CachedClient {
            client,
            statements: Statements::default(),
        }
    }

    pub fn is_closed(&self) -> bool {
        self.client.is_closed()
    }

    /// The connection itself, for work that prepares nothing (migrations).
    pub fn raw(&mut self) -> &mut Client {
        &mut self.client
    }

    pub fn transaction(&mut self) -> Result<CachedTx<'_>, Error> {
        Ok(CachedTx {
            tx: self.client.transaction()?,
            statements: &mut self.statements,
        })
    }

    /// A read-only transaction that sees one state of the database throughout.
    pub fn snapshot(&mut self) -> Result<CachedTx<'_>, Error> {
        Ok(CachedTx {
            tx: self
                .client
                .build_transaction()
                .isolation_level(IsolationLevel::RepeatableRead)
                .read_only(true)
                .start()?,
            statements: &mut self.statements,
        })
    }
}

impl WithStatements for CachedClient {
    type Client = Client;
    fn parts(&mut self) -> (&mut Client, &mut Statements) {
        (&mut self.client, &mut self.statements)
    }
}

/// A transaction on a [`CachedClient`], preparing through its statements.
pub struct CachedTx<'c> {
    tx: Transaction<'c>,
    statements: &'c mut Statements,
}

impl CachedTx<'_> {
    pub fn commit(self) -> Result<(), Error> {
        self.tx.commit()
    }
}

impl<'c> WithStatements for CachedTx<'c> {
    type Client = Transaction<'c>;
    fn parts(&mut self) -> (&mut Transaction<'c>, &mut Statements) {
        (&mut self.tx, self.statements)
    }
}
