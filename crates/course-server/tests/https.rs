//! HTTPS: the real server binary with `--cert/--key` from a self-signed certificate for
//! localhost and 127.0.0.1 made here (rcgen: nothing to install), tests/fake-runner.sh as its
//! judge (no GPU), and a rustls client on the server's own *ring* provider.
use std::io::{BufRead, BufReader, ErrorKind, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdout, Command, Stdio};
use std::sync::Arc;
use std::time::Duration;

use rustls::pki_types::{CertificateDer, ServerName};
use rustls::{ClientConfig, ClientConnection, RootCertStore, StreamOwned};

mod common;
use common::{SERVER, TestDir, fake_runner};

/// A self-signed certificate for localhost and 127.0.0.1: its DER, and its PEM files.
struct Certificate {
    der: CertificateDer<'static>,
    cert: PathBuf,
    key: PathBuf,
}

fn self_signed(dir: &TestDir, name: &str) -> Certificate {
    let names = vec!["localhost".to_string(), "127.0.0.1".to_string()];
    let made = rcgen::generate_simple_self_signed(names).unwrap();
    let cert = dir.join(&format!("{name}.pem"));
    let key = dir.join(&format!("{name}-key.pem"));
    std::fs::write(&cert, made.cert.pem()).unwrap();
    std::fs::write(&key, made.signing_key.serialize_pem()).unwrap();
    Certificate {
        der: made.cert.der().clone(),
        cert,
        key,
    }
}

/// The server, killed when dropped.
struct Server {
    child: Child,
    _stdout: BufReader<ChildStdout>,
    port: u16,
}

impl Server {
    fn start(dir: &TestDir, certificate: &Certificate) -> Server {
        let log = dir.join("server.log");
        let mut child = Command::new(SERVER)
            .args(["--listen", "127.0.0.1:0", "--db"])
            .arg(dir.join("db.sqlite"))
            .arg("--runner")
            .arg(fake_runner())
            .arg("--cert")
            .arg(&certificate.cert)
            .arg("--key")
            .arg(&certificate.key)
            .stdout(Stdio::piped())
            .stderr(std::fs::File::create(&log).unwrap())
            .spawn()
            .unwrap();
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        let mut line = String::new();
        stdout.read_line(&mut line).unwrap();
        if !line.contains("serving https://127.0.0.1:") {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "the server did not start: {line:?}\n{}",
                std::fs::read_to_string(&log).unwrap_or_default()
            );
        }
        let address = line.split("://").nth(1).unwrap().split(' ').next().unwrap();
        let port = address.rsplit(':').next().unwrap().parse().unwrap();
        Server {
            child,
            _stdout: stdout,
            port,
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A client that trusts only `trusted`.
fn client(trusted: &CertificateDer<'static>) -> Arc<ClientConfig> {
    let mut roots = RootCertStore::empty();
    roots.add(trusted.clone()).unwrap();
    // The server's provider (rustls deprecates ring for lacking post-quantum key exchange).
    #[allow(deprecated)]
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    Arc::new(
        ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_root_certificates(roots)
            .with_no_client_auth(),
    )
}

fn connect(port: u16) -> TcpStream {
    let stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    stream
        .set_write_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    stream
}

fn get(path: &str, host: &str) -> String {
    format!("GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n")
}

/// GET `path` over HTTPS to the server named `host` (the name its certificate is checked
/// against); the response's status and body, or the client's error.
fn https_get(
    port: u16,
    config: Arc<ClientConfig>,
    host: &str,
    path: &str,
) -> Result<(u16, String), std::io::Error> {
    let name = ServerName::try_from(host.to_string()).unwrap();
    let connection = ClientConnection::new(config, name).unwrap();
    let mut tls = StreamOwned::new(connection, connect(port));
    tls.write_all(get(path, host).as_bytes())?;
    tls.flush()?;
    let mut raw = Vec::new();
    match tls.read_to_end(&mut raw) {
        Ok(_) => {}
        // A peer that closes without TLS's close_notify, after the whole response.
        Err(e) if e.kind() == ErrorKind::UnexpectedEof && !raw.is_empty() => {}
        Err(e) => return Err(e),
    }
    Ok(response(&raw))
}

fn response(raw: &[u8]) -> (u16, String) {
    let text = String::from_utf8_lossy(raw).into_owned();
    let (head, body) = text
        .split_once("\r\n\r\n")
        .unwrap_or_else(|| panic!("no response: {text:?}"));
    let code = head.split(' ').nth(1).unwrap().parse().unwrap();
    assert!(
        !head
            .to_ascii_lowercase()
            .contains("transfer-encoding: chunked"),
        "a chunked reply, which this test does not read: {head}"
    );
    (code, body.to_string())
}

#[test]
fn https_with_a_trusted_certificate_serves_the_api() {
    let dir = TestDir::new("https-trusted");
    let certificate = self_signed(&dir, "server");
    let server = Server::start(&dir, &certificate);
    for host in ["127.0.0.1", "localhost"] {
        let (code, body) = https_get(server.port, client(&certificate.der), host, "/api/overview")
            .unwrap_or_else(|e| panic!("HTTPS to {host} failed: {e}"));
        assert_eq!(code, 200, "{body}");
        let overview: serde_json::Value =
            serde_json::from_str(&body).unwrap_or_else(|e| panic!("{e}: {body}"));
        assert!(overview.is_object(), "{body}");
    }
}

#[test]
fn a_client_that_does_not_trust_the_certificate_is_refused() {
    let dir = TestDir::new("https-untrusted");
    let certificate = self_signed(&dir, "server");
    // Another certificate for the same names: what a client trusting something else sees.
    let other = self_signed(&dir, "other").der;
    let server = Server::start(&dir, &certificate);
    let error = https_get(server.port, client(&other), "127.0.0.1", "/api/overview")
        .expect_err("a client that trusts another certificate got a reply");
    assert!(
        error.to_string().contains("invalid peer certificate"),
        "{error}"
    );
    // The server serves on after a failed handshake.
    let (code, body) = https_get(
        server.port,
        client(&certificate.der),
        "127.0.0.1",
        "/api/overview",
    )
    .unwrap();
    assert_eq!(code, 200, "{body}");
}

#[test]
fn plain_http_to_the_https_port_gets_no_200() {
    let dir = TestDir::new("https-plain");
    let certificate = self_signed(&dir, "server");
    let server = Server::start(&dir, &certificate);
    let mut stream = connect(server.port);
    // The server may close before or while this is written.
    let _ = stream.write_all(get("/api/overview", "127.0.0.1").as_bytes());
    let mut raw = Vec::new();
    let read = stream.read_to_end(&mut raw);
    let text = String::from_utf8_lossy(&raw);
    assert!(
        !text.starts_with("HTTP/1.1 200") && !text.starts_with("HTTP/1.0 200"),
        "plain HTTP got {read:?}: {text}"
    );
    // And HTTPS still works after it.
    let (code, body) = https_get(
        server.port,
        client(&certificate.der),
        "127.0.0.1",
        "/api/overview",
    )
    .unwrap();
    assert_eq!(code, 200, "{body}");
}

/// `course-server` with these arguments (and a fresh database and the fake runner) stops at
/// once with one sentence on stderr and a non-zero status.
fn refuses(dir: &TestDir, cert: &Path, key: &Path) -> String {
    let mut child = Command::new(SERVER)
        .args(["--listen", "127.0.0.1:0", "--db"])
        .arg(dir.join("db.sqlite"))
        .arg("--runner")
        .arg(fake_runner())
        .arg("--cert")
        .arg(cert)
        .arg("--key")
        .arg(key)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // A server that started anyway would never end: give it 30 s.
    let mut waited = Duration::ZERO;
    while child.try_wait().unwrap().is_none() {
        if waited > Duration::from_secs(30) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("the server started with --cert {}", cert.display());
        }
        std::thread::sleep(Duration::from_millis(50));
        waited += Duration::from_millis(50);
    }
    let output = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "{stderr}");
    assert!(stdout.is_empty(), "{stdout}");
    let line = stderr.trim_end();
    assert!(line.starts_with("course-server: "), "{stderr}");
    assert!(
        !line.contains('\n') && !line.contains(". "),
        "not one sentence: {stderr}"
    );
    line.to_string()
}

#[test]
fn a_missing_or_unreadable_certificate_is_one_sentence_and_a_failure() {
    let dir = TestDir::new("https-bad-cert");
    let good = self_signed(&dir, "server");
    let missing = dir.join("missing.pem");
    let line = refuses(&dir, &missing, &good.key);
    assert!(
        line.contains("could not read the certificate") && line.contains("missing.pem"),
        "{line}"
    );
    // A directory cannot be read as a file (unlike a file without read permission, which
    // root, as on some CI machines, reads anyway).
    let line = refuses(&dir, dir.path(), &good.key);
    assert!(line.contains("could not read the certificate"), "{line}");
    // Files that hold no certificate: the key given as --cert, and text that is no PEM.
    let line = refuses(&dir, &good.key, &good.key);
    assert!(line.contains("holds no PEM certificate"), "{line}");
    let text = dir.join("text.pem");
    std::fs::write(&text, "not a certificate\n").unwrap();
    let line = refuses(&dir, &text, &good.key);
    assert!(line.contains("holds no PEM certificate"), "{line}");
    // The key missing, or not the certificate's.
    let line = refuses(&dir, &good.cert, &missing);
    assert!(line.contains("missing.pem"), "{line}");
    let other = self_signed(&dir, "other");
    let line = refuses(&dir, &good.cert, &other.key);
    assert!(line.contains("could not use the certificate"), "{line}");
}
