//! A small pool of connections: a connection is taken for one read or one write transaction
//! and handed back when done, so a process holds as many as it ever used at once. A connection
//! that broke is dropped instead of handed back. Every connection is made to one [`Server`]: a
//! URL read once, with its TLS connector.

use std::ops::{Deref, DerefMut};
use std::sync::Mutex;

use postgres::{Client, Config};
use tokio_postgres_rustls::MakeRustlsConnect;

use crate::error::PostgresError;
use crate::sql::CachedClient;
use crate::tls::TlsSettings;

/// A database to connect to: the client library's settings, and the TLS connector the URL's
/// `sslmode` and `sslrootcert` make (`tls`).
#[derive(Clone)]
pub struct Server {
    pub config: Config,
    tls: MakeRustlsConnect,
}

impl Server {
    /// Reads a `postgres://` URL.
    pub fn from_url(url: &str) -> Result<Self, PostgresError> {
        if !url.starts_with("postgres://") && !url.starts_with("postgresql://") {
            return Err(PostgresError::BadUrl(url.to_string()));
        }
        let (tls, url_rest) = TlsSettings::from_url(url)?;
        let mut config = url_rest
            .parse::<Config>()
            .map_err(|_| PostgresError::BadUrl(without_password(url)))?;
        config.ssl_mode(tls.mode);
        Ok(Server {
            config,
            tls: tls.connector()?,
        })
    }

    /// Opens one connection.
    pub fn connect(&self) -> Result<Client, PostgresError> {
        self.config.connect(self.tls.clone()).map_err(|source| {
            let location = location(&self.config);
            match untrusted_certificate(&source) {
                true => PostgresError::UntrustedCertificate { location, source },
                false => PostgresError::Connect { location, source },
            }
        })
    }
}

/// Whether a connection failed on the server's certificate.
fn untrusted_certificate(error: &postgres::Error) -> bool {
    let mut next: Option<&(dyn std::error::Error + 'static)> = Some(error);
    while let Some(error) = next {
        // An I/O error's `source` skips the error it wraps: look inside it too.
        let inner = error
            .downcast_ref::<std::io::Error>()
            .and_then(|io| io.get_ref())
            .map(|inner| inner as &(dyn std::error::Error + 'static));
        for candidate in [Some(error), inner].into_iter().flatten() {
            if let Some(rustls::Error::InvalidCertificate(_)) = candidate.downcast_ref() {
                return true;
            }
        }
        next = error.source();
    }
    false
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
    server: Server,
    /// Statements every new connection runs first (`SET …`).
    session: String,
    idle: Mutex<Vec<CachedClient>>,
}

impl Pool {
    pub fn new(server: Server, session: String) -> Self {
        Pool {
            server,
            session,
            idle: Mutex::new(Vec::new()),
        }
    }

    /// The same pool with other session settings (idle connections, made with the old ones,
    /// are closed).
    pub fn with_session(self, session: String) -> Self {
        Pool::new(self.server, session)
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
                let mut client = self.server.connect()?;
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
        location(&self.server.config)
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
