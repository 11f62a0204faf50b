//! Encrypted connections, `sslmode` as libpq reads it, against a real PostgreSQL that offers TLS
//! (`CAIRN_TEST_POSTGRES_TLS`: Debian's server, its certificate for the address 127.0.0.1 signed
//! by a throwaway authority, `CAIRN_TEST_POSTGRES_TLS_ROOT`, started by `.ci/postgres
//! start-tls`) and the test server without TLS (`CAIRN_TEST_POSTGRES`). Each is ignored
//! unless asked for (`--include-ignored`); CI starts both servers.

use std::path::Path;

use cairn_store_postgres::testing::{connection_encrypted, test_server, tls_test_server};

fn with(url: &str, parameters: &str) -> String {
    let separator = if url.contains('?') { '&' } else { '?' };
    format!("{url}{separator}{parameters}")
}

fn root_file(path: &Path) -> String {
    format!("sslrootcert={}", path.display())
}

#[test]
#[ignore = "needs a PostgreSQL server that offers TLS (CAIRN_TEST_POSTGRES_TLS)"]
fn each_mode_encrypts_as_libpq_does() {
    let (url, _) = tls_test_server();
    assert!(!connection_encrypted(&with(&url, "sslmode=disable")).unwrap());
    // The default, `prefer`, encrypts when the server offers it, whatever its certificate.
    assert!(connection_encrypted(&url).unwrap());
    assert!(connection_encrypted(&with(&url, "sslmode=require")).unwrap());
}

#[test]
#[ignore = "needs a PostgreSQL server that offers TLS (CAIRN_TEST_POSTGRES_TLS)"]
fn verify_full_trusts_the_named_authority_and_nothing_else() {
    let (url, root) = tls_test_server();
    let verified = with(&url, &format!("sslmode=verify-full&{}", root_file(&root)));
    assert!(connection_encrypted(&verified).unwrap());

    // Without the authority, the Mozilla roots do not vouch for a throwaway certificate.
    let error = connection_encrypted(&with(&url, "sslmode=verify-full")).unwrap_err();
    let message = error.to_string();
    assert!(message.contains("not trusted"), "{message}");
    assert!(message.contains("sslrootcert=PATH"), "{message}");

    // Another authority's certificate is no better, and `require` with a root file checks the
    // chain too, as libpq does.
    let other = tempfile::tempdir().unwrap();
    let stranger = other.path().join("stranger.pem");
    std::fs::write(&stranger, STRANGER_AUTHORITY).unwrap();
    for mode in ["verify-ca", "require"] {
        let parameters = format!("sslmode={mode}&{}", root_file(&stranger));
        let error = connection_encrypted(&with(&url, &parameters)).unwrap_err();
        assert!(error.to_string().contains("not trusted"), "{mode}: {error}");
    }
    let required = with(&url, &format!("sslmode=require&{}", root_file(&root)));
    assert!(connection_encrypted(&required).unwrap());
}

#[test]
#[ignore = "needs a PostgreSQL server that offers TLS (CAIRN_TEST_POSTGRES_TLS)"]
fn verify_ca_takes_a_certificate_for_another_name_and_verify_full_does_not() {
    let (url, root) = tls_test_server();
    // The certificate names 127.0.0.1; `localhost` reaches the same server by another name.
    let by_name = url.replace("127.0.0.1", "localhost");
    assert_ne!(by_name, url);
    let chain = with(&by_name, &format!("sslmode=verify-ca&{}", root_file(&root)));
    assert!(connection_encrypted(&chain).unwrap());
    let full = with(
        &by_name,
        &format!("sslmode=verify-full&{}", root_file(&root)),
    );
    let error = connection_encrypted(&full).unwrap_err();
    assert!(error.to_string().contains("not trusted"), "{error}");
}

#[test]
#[ignore = "needs a PostgreSQL server that offers TLS (CAIRN_TEST_POSTGRES_TLS)"]
fn channel_binding_ties_a_password_sign_in_to_the_encrypted_connection() {
    let (url, _) = tls_test_server();
    // The user `cairn` signs in with SCRAM (see `.ci/postgres start-tls`), as on hosted services
    // whose URLs ask for channel binding.
    let user = url.replace("postgres@", "cairn:cairn-test@");
    assert_ne!(user, url);
    let bound = with(&user, "sslmode=require&channel_binding=require");
    assert!(connection_encrypted(&bound).unwrap());
    // The superuser signs in without a password: there is nothing to bind, and asking for it
    // fails the connection instead of going on unbound.
    let error = connection_encrypted(&with(&url, "channel_binding=require")).unwrap_err();
    assert!(error.to_string().contains("cannot connect"), "{error}");
}

#[test]
#[ignore = "needs a PostgreSQL server (CAIRN_TEST_POSTGRES)"]
fn a_server_without_tls_is_used_in_plain_text_only_when_allowed() {
    let url = test_server();
    assert!(!connection_encrypted(&url).unwrap());
    let error = connection_encrypted(&with(&url, "sslmode=require")).unwrap_err();
    assert!(error.to_string().contains("cannot connect"), "{error}");
}

/// A self-signed authority certificate that signed nothing the test server holds.
const STRANGER_AUTHORITY: &str = "\
-----BEGIN CERTIFICATE-----
MIIBnTCCAUOgAwIBAgIUKIzkNcmFYwf0BpMwxQPFMROpKcswCgYIKoZIzj0EAwIw
IzEhMB8GA1UEAwwYY2Fpcm4gc3RyYW5nZXIgYXV0aG9yaXR5MCAXDTI2MTEyNTE0
NDM0NVoYDzIxMjYxMTAxMTQ0MzQ1WjAjMSEwHwYDVQQDDBhjYWlybiBzdHJhbmdl
ciBhdXRob3JpdHkwWTATBgcqhkjOPQIBBggqhkjOPQMBBwNCAARogM/pCr1G8gz9
FIvE3htUFhdz33dnqob+Hf0BIGSXXNcN04lUFO6D82f1lBLtr5WO1hK62Uyml3/+
mucjygJjo1MwUTAdBgNVHQ4EFgQUad69S63736iwi7674lOvUyohSlswHwYDVR0j
BBgwFoAUad69S63736iwi7674lOvUyohSlswDwYDVR0TAQH/BAUwAwEB/zAKBggq
hkjOPQQDAgNIADBFAiApmYN7uUtEyBKMLUQJT+IwZA7YkIEwp1D8aTEXWuYovgIh
AOrRczMbC2q2y1ll5kPVydsTjf9zKzfmSiLXUihlloZJ
-----END CERTIFICATE-----
";
