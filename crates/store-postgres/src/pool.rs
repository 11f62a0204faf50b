//! A small pool of connections: a connection is taken for one read or one write transaction
//! and handed back when done, so a process holds as many as it ever used at once. A connection
//! that broke is dropped instead of handed back.

use std::ops::{Deref, DerefMut};
use std::sync::Mutex;

use postgres::{Client, Config, NoTls};

use crate::error::PostgresError;
use crate::sql::CachedClient;

/// Parses a `postgres://` URL.
pub fn config(url: &str) -> Result<Config, PostgresError> {
    if !url.starts_with("postgres://") && !url.starts_with("postgresql://") {
        return Err(PostgresError::BadUrl(url.to_string()));
    }
    url.parse::<Config>()
        .map_err(|_| PostgresError::BadUrl(without_password(url)))
}

/// Opens one connection.
pub fn connect(config: &Config) -> Result<Client, PostgresError> {
    config
        .connect(NoTls)
        .map_err(|source| PostgresError::Connect {
            location: location(config),
            source,
        })
}

/// `url` with every connection's search path set to `schema`, then `public` (where the
/// extensions live): each cairn process given that URL works in that schema.
pub fn url_in_schema(url: &str, schema: &str) -> String {
    let separator = if url.contains('?') { '&' } else { '?' };
    format!("{url}{separator}options=-c%20search_path%3D{schema}%2Cpublic")
}

/// `name` as an SQL identifier, quoted.
pub fn quote_identifier(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

/// Where `config` connects, for people: a URL without the password, and the schema when the
/// connection's search path names one.
pub fn location(config: &Config) -> String {
    let host = config
        .get_hosts()
        .first()
        .map(|host| match host {
            postgres::config::Host::Tcp(name) => name.clone(),
            postgres::config::Host::Unix(path) => path.display().to_string(),
        })
        .unwrap_or_else(|| "localhost".into());
    let port = config.get_ports().first().copied().unwrap_or(5432);
    let user = config
        .get_user()
        .map(|u| format!("{u}@"))
        .unwrap_or_default();
    let database = config.get_dbname().unwrap_or("");
    let url = format!("postgres://{user}{host}:{port}/{database}");
    // Several stores may share a database, one per schema: say which.
    let schema = config
        .get_options()
        .and_then(|options| options.split("search_path=").nth(1))
        .and_then(|path| path.split([',', ' ']).next())
        .map(|schema| schema.trim_matches('"'))
        .filter(|schema| !schema.is_empty() && *schema != "public");
    match schema {
        Some(schema) => format!("{url} (schema {schema})"),
        None => url,
    }
}

/// A URL with its password (if any) replaced by `***`.
fn without_password(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return "the URL given".into();
    };
    match rest.split_once('@') {
        Some((credentials, host)) => {
            let user = credentials.split(':').next().unwrap_or("");
            format!("{scheme}://{user}:***@{host}")
        }
        None => url.to_string(),
    }
}

pub struct Pool {
    config: Config,
    /// Statements every new connection runs first (`SET …`).
    session: String,
    idle: Mutex<Vec<CachedClient>>,
}

impl Pool {
    pub fn new(config: Config, session: String) -> Self {
        Pool {
            config,
            session,
            idle: Mutex::new(Vec::new()),
        }
    }

    /// The same pool with other session settings (idle connections, made with the old ones,
    /// are closed).
    pub fn with_session(self, session: String) -> Self {
        Pool::new(self.config, session)
    }

    /// A free connection, opened when none is idle.
    pub fn get(&self) -> Result<Connection<'_>, PostgresError> {
        let idle = self
            .idle
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .pop();
        let client = match idle {
            Some(client) if !client.is_closed() => client,
            _ => {
                let mut client = connect(&self.config)?;
                client.batch_execute(&self.session)?;
                CachedClient::new(client)
            }
        };
        Ok(Connection {
            pool: self,
            client: Some(client),
        })
    }

    pub fn location(&self) -> String {
        location(&self.config)
    }
}

/// A connection taken from the pool; it goes back when dropped.
pub struct Connection<'p> {
    pool: &'p Pool,
    client: Option<CachedClient>,
}

impl Deref for Connection<'_> {
    type Target = CachedClient;
    fn deref(&self) -> &CachedClient {
        self.client.as_ref().expect("present until dropped")
    }
}

impl DerefMut for Connection<'_> {
    fn deref_mut(&mut self) -> &mut CachedClient {
        self.client.as_mut().expect("present until dropped")
    }
}

impl Drop for Connection<'_> {
    fn drop(&mut self) {
        if let Some(client) = self.client.take()
            && !client.is_closed()
        {
            self.pool
                .idle
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner())
                .push(client);
        }
    }
}
