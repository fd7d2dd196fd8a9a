//! The judge's requests to the workshop server. Plain HTTP/1.1 is written here, over a TCP
//! stream, so that the newcomer's `cargo test` builds no HTTP library for a feature it does not
//! use; with the feature `https`, an https:// server is reached through ureq and rustls.
use std::io::{Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::time::Duration;

/// Why a request got no answer.
pub enum Failure {
    /// No server answered (yet): worth trying again.
    Unreachable(String),
    /// An answer that trying again will not change (a refused certificate): one sentence.
    Final(String),
}

/// How long a request may take, and the largest reply read.
const TIMEOUT: Duration = Duration::from_secs(60);
const MAX_REPLY: u64 = 16 << 20;

pub enum Transport {
    Plain {
        /// `host:port`, and the path the server's address ends with (usually empty).
        authority: String,
        prefix: String,
    },
    #[cfg(feature = "https")]
    Tls(tls::Agent),
}

impl Transport {
    /// For the server at `base` (`http://HOST[:PORT][/PATH]` or `https://...`); `ca`: a PEM
    /// file whose certificate to trust (`--ca`).
    pub fn new(base: &str, ca: Option<&str>) -> Result<Transport, String> {
        if let Some(rest) = base.strip_prefix("http://") {
            if ca.is_some() {
                return Err("--ca is for an https:// server, not an http:// one".into());
            }
            let (authority, prefix) = match rest.find('/') {
                Some(at) => (&rest[..at], &rest[at..]),
                None => (rest, ""),
            };
            if authority.is_empty() {
                return Err(format!("--remote `{base}` names no host"));
            }
            let authority = match authority.contains(':') {
                true => authority.to_string(),
                false => format!("{authority}:80"),
            };
            return Ok(Transport::Plain {
                authority,
                prefix: prefix.to_string(),
            });
        }
        if !base.starts_with("https://") {
            return Err(format!(
                "--remote needs an address that starts with http:// or https://, not `{base}`"
            ));
        }
        #[cfg(feature = "https")]
        return Ok(Transport::Tls(tls::Agent::new(base, ca)?));
        #[cfg(not(feature = "https"))]
        Err(
            "this judge was built without TLS; for an https:// server run \
             `cargo run --features https --bin judge -- ...`"
                .into(),
        )
    }

    /// `method base+path`, with `headers` and a JSON `body`: the status and the reply's text.
    pub fn send(
        &self,
        base: &str,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: Option<&[u8]>,
    ) -> Result<(u16, String), Failure> {
        match self {
            Transport::Plain { authority, prefix } => {
                plain(authority, &format!("{prefix}{path}"), method, headers, body)
            }
            #[cfg(feature = "https")]
            Transport::Tls(agent) => agent.send(&format!("{base}{path}"), method, headers, body),
        }
        .map_err(|failure| match failure {
            Failure::Unreachable(why) => {
                Failure::Unreachable(format!("could not reach the server at {base} ({why})"))
            }
            last => last,
        })
    }
}

/// One request on a connection of its own (`Connection: close`).
fn plain(
    authority: &str,
    path: &str,
    method: &str,
    headers: &[(&str, &str)],
    body: Option<&[u8]>,
) -> Result<(u16, String), Failure> {
    let unreachable = |e: std::io::Error| Failure::Unreachable(e.to_string());
    let address = authority
        .to_socket_addrs()
        .map_err(unreachable)?
        .next()
        .ok_or_else(|| Failure::Final(format!("`{authority}` has no address")))?;
    let mut stream =
        TcpStream::connect_timeout(&address, Duration::from_secs(10)).map_err(unreachable)?;
    stream
        .set_read_timeout(Some(TIMEOUT))
        .map_err(unreachable)?;
    stream
        .set_write_timeout(Some(TIMEOUT))
        .map_err(unreachable)?;
    let body = body.unwrap_or_default();
    let mut request = format!(
        "{method} {path} HTTP/1.1\r\nHost: {authority}\r\nConnection: close\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\n",
        body.len()
    );
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str("\r\n");
    stream.write_all(request.as_bytes()).map_err(unreachable)?;
    stream.write_all(body).map_err(unreachable)?;
    let mut reply = Vec::new();
    stream
        .take(MAX_REPLY)
        .read_to_end(&mut reply)
        .map_err(unreachable)?;
    parse_reply(&reply)
        .ok_or_else(|| Failure::Unreachable("its reply was not HTTP, or ended early".to_string()))
}

/// The status and the body of an HTTP/1.1 reply read to its end.
fn parse_reply(reply: &[u8]) -> Option<(u16, String)> {
    let split = reply.windows(4).position(|w| w == b"\r\n\r\n")?;
    let head = String::from_utf8_lossy(&reply[..split]);
    let body = &reply[split + 4..];
    let status: u16 = head
        .lines()
        .next()?
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()?;
    let chunked = head.lines().any(|line| {
        let line = line.to_ascii_lowercase();
        line.starts_with("transfer-encoding:") && line.contains("chunked")
    });
    let body = if chunked {
        unchunk(body)?
    } else {
        body.to_vec()
    };
    Some((status, String::from_utf8_lossy(&body).into_owned()))
}

/// A chunked body joined.
fn unchunk(mut body: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    loop {
        let end = body.windows(2).position(|w| w == b"\r\n")?;
        let size_text = String::from_utf8_lossy(&body[..end]);
        let size = usize::from_str_radix(size_text.split(';').next()?.trim(), 16).ok()?;
        body = &body[end + 2..];
        if size == 0 {
            return Some(out);
        }
        out.extend_from_slice(body.get(..size)?);
        body = body.get(size + 2..)?;
    }
}

#[cfg(feature = "https")]
mod tls {
    use super::{Failure, TIMEOUT};
    use ureq::tls::{Certificate, RootCerts, TlsConfig};

    pub struct Agent {
        agent: ureq::Agent,
        base: String,
        ca: Option<String>,
    }

    impl Agent {
        pub fn new(base: &str, ca: Option<&str>) -> Result<Agent, String> {
            let mut config = ureq::Agent::config_builder()
                .http_status_as_error(false)
                .timeout_global(Some(TIMEOUT));
            if let Some(path) = ca {
                let pem =
                    std::fs::read(path).map_err(|e| format!("could not read --ca {path}: {e}"))?;
                let cert = Certificate::from_pem(&pem)
                    .map_err(|e| format!("--ca {path} holds no PEM certificate ({e})"))?;
                let roots = RootCerts::new_with_certs(&[cert]);
                config = config.tls_config(TlsConfig::builder().root_certs(roots).build());
            }
            Ok(Agent {
                agent: ureq::Agent::new_with_config(config.build()),
                base: base.to_string(),
                ca: ca.map(str::to_string),
            })
        }

        pub fn send(
            &self,
            url: &str,
            method: &str,
            headers: &[(&str, &str)],
            body: Option<&[u8]>,
        ) -> Result<(u16, String), Failure> {
            let sent = match body {
                Some(body) => {
                    let mut request = self.agent.post(url).content_type("application/json");
                    for (name, value) in headers {
                        request = request.header(*name, *value);
                    }
                    request.send(body)
                }
                None => {
                    let mut request = self.agent.get(url);
                    for (name, value) in headers {
                        request = request.header(*name, *value);
                    }
                    debug_assert_eq!(method, "GET");
                    request.call()
                }
            };
            match sent {
                Ok(mut response) => {
                    let status = response.status().as_u16();
                    let text = response.body_mut().read_to_string().map_err(|e| {
                        Failure::Unreachable(format!("its reply could not be read ({e})"))
                    })?;
                    Ok((status, text))
                }
                // A certificate refused now is refused on every try.
                Err(e) => match e.to_string().split_once("invalid peer certificate: ") {
                    Some((_, why)) => Err(Failure::Final(self.untrusted(why))),
                    None => Err(Failure::Unreachable(e.to_string())),
                },
            }
        }

        /// Why the server's certificate was refused (rustls's reason, which ureq hands on as
        /// an I/O error), and what to do, in one sentence.
        fn untrusted(&self, why: &str) -> String {
            let what = if why.contains("CaUsedAsEndEntity") {
                "it is a CA's certificate (CA:TRUE), which cannot be a server's own: make it \
                 with basicConstraints CA:FALSE"
                    .to_string()
            } else if let Some(path) = &self.ca {
                format!("it is not the certificate in --ca {path}, or not made for this address")
            } else {
                "pass the certificate your instructor made with --ca FILE".to_string()
            };
            format!(
                "the server's certificate at {} is not trusted ({why}): {what}",
                self.base
            )
        }
    }
}
