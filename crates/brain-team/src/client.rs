//! The engine's HTTP client: one base URL (`http://host:8983/solr`), one index, basic auth from the
//! environment or a file only its owner can read, every answer parsed as JSON and every failure
//! classified. Credentials never appear in a URL, a message or a log line.

use std::path::Path;
use std::time::Duration;

use base64::Engine as _;
use serde_json::Value;

use crate::TeamError;

/// How long to wait for a connection: a LAN engine accepts within milliseconds.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(3);
/// The default time allowed for one request (a bulk push of a batch included).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);
/// The largest answer read (a page of hits with their passages is far smaller).
const MAX_ANSWER: u64 = 64 << 20;
/// The largest credentials file read.
const MAX_CREDENTIALS: u64 = 4096;

/// A connection to one index of one engine.
pub struct Engine {
    url: String,
    index: String,
    auth: Option<String>,
    timeout: Duration,
    agent: ureq::Agent,
}

impl std::fmt::Debug for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Engine")
            .field("url", &self.url)
            .field("index", &self.index)
            .field("auth", &self.auth.as_ref().map(|_| "(set)"))
            .finish()
    }
}

/// Where the credentials come from, if anywhere: both `BRAIN_ENGINE_USER` and
/// `BRAIN_ENGINE_PASSWORD`, else the file `credentials` names (`user:password` on its first line;
/// refused unless only its owner may read it).
pub fn credentials(file: Option<&Path>) -> Result<Option<(String, String)>, TeamError> {
    if let (Some(u), Some(p)) = (
        brain_doc::env::get(brain_doc::env::BRAIN_ENGINE_USER),
        brain_doc::env::get(brain_doc::env::BRAIN_ENGINE_PASSWORD),
    ) {
        return Ok(Some((u.to_string(), p.to_string())));
    }
    let Some(path) = file else { return Ok(None) };
    let shown = brain_store::display_path(path);
    let meta = std::fs::metadata(path)
        .map_err(|e| TeamError::Config(format!("team.credentials {shown}: {e}")))?;
    if !meta.is_file() || meta.len() > MAX_CREDENTIALS {
        return Err(TeamError::Config(format!(
            "team.credentials {shown} is not a small file holding user:password"
        )));
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        if meta.permissions().mode() & 0o077 != 0 {
            return Err(TeamError::Config(format!(
                "team.credentials {shown} may be read by others: chmod 600 it"
            )));
        }
    }
    let text = std::fs::read_to_string(path)
        .map_err(|e| TeamError::Config(format!("team.credentials {shown}: {e}")))?;
    let line = text.lines().next().unwrap_or_default().trim();
    match line.split_once(':') {
        Some((u, p)) if !u.is_empty() => Ok(Some((u.to_string(), p.to_string()))),
        _ => Err(TeamError::Config(format!(
            "team.credentials {shown}: the first line must be user:password"
        ))),
    }
}

/// Whom an `https://` engine's certificate must be signed by: Mozilla's roots (the default), or
/// the certificates of a team's own CA.
#[derive(Debug, Clone, Default)]
pub struct Tls {
    roots: Option<Vec<ureq::tls::Certificate<'static>>>,
}

impl Tls {
    /// `BRAIN_ENGINE_CA`, else the PEM file `ca` names (brain.yaml's `team.ca`), else the default.
    pub fn from_env(ca: Option<&Path>) -> Result<Tls, TeamError> {
        let file =
            brain_doc::env::get(brain_doc::env::BRAIN_ENGINE_CA).map(std::path::PathBuf::from);
        let Some(path) = file.or_else(|| ca.map(Path::to_path_buf)) else {
            return Ok(Tls::default());
        };
        let shown = brain_store::display_path(&path);
        let bad = |why: String| TeamError::Config(format!("the engine's CA {shown}: {why}"));
        let meta = std::fs::metadata(&path).map_err(|e| bad(e.to_string()))?;
        if !meta.is_file() || meta.len() > MAX_CA {
            return Err(bad("not a PEM file of certificates".into()));
        }
        let pem = std::fs::read(&path).map_err(|e| bad(e.to_string()))?;
        let mut roots = Vec::new();
        for item in ureq::tls::parse_pem(&pem) {
            if let ureq::tls::PemItem::Certificate(c) = item.map_err(|e| bad(e.to_string()))? {
                roots.push(c);
            }
        }
        if roots.is_empty() {
            return Err(bad("holds no certificate".into()));
        }
        Ok(Tls { roots: Some(roots) })
    }
}

/// The largest CA file read.
const MAX_CA: u64 = 1 << 20;

impl Engine {
    /// A client of `index` at `url` (already checked by `brain_store::team::engine_url`).
    pub fn connect(
        url: &str,
        index: &str,
        credentials: Option<(String, String)>,
        timeout: Duration,
    ) -> Result<Engine, TeamError> {
        Engine::connect_tls(url, index, credentials, &Tls::default(), timeout)
    }

    /// [`Engine::connect`] trusting `tls`'s roots for an `https://` engine.
    pub fn connect_tls(
        url: &str,
        index: &str,
        credentials: Option<(String, String)>,
        tls: &Tls,
        timeout: Duration,
    ) -> Result<Engine, TeamError> {
        let url = brain_store::team::engine_url(url).map_err(TeamError::Config)?;
        brain_store::team::check_index(index).map_err(TeamError::Config)?;
        let auth = credentials.map(|(u, p)| {
            format!(
                "Basic {}",
                base64::engine::general_purpose::STANDARD.encode(format!("{u}:{p}"))
            )
        });
        let mut config = ureq::Agent::config_builder()
            .timeout_connect(Some(CONNECT_TIMEOUT.min(timeout)))
            .timeout_global(Some(timeout))
            .http_status_as_error(false);
        if let Some(roots) = &tls.roots {
            config = config.tls_config(
                ureq::tls::TlsConfig::builder()
                    .root_certs(ureq::tls::RootCerts::new_with_certs(roots))
                    .build(),
            );
        }
        let agent = config.build().into();
        Ok(Engine {
            url,
            index: index.to_string(),
            auth,
            timeout,
            agent,
        })
    }

    /// The engine's base URL (never holds credentials).
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The index this client reads and writes.
    pub fn index(&self) -> &str {
        &self.index
    }

    /// `GET {url}/{path}` with `params` (URL-encoded by the client: a value is never syntax).
    pub fn get(&self, path: &str, params: &[(&str, &str)]) -> Result<Value, TeamError> {
        self.send(path, params, None)
    }

    /// `POST {url}/{path}` of a JSON body.
    pub fn post_json(
        &self,
        path: &str,
        params: &[(&str, &str)],
        body: &[u8],
    ) -> Result<Value, TeamError> {
        self.send(path, params, Some(("application/json", body)))
    }

    /// `POST {url}/{path}` of raw bytes (a configset zip).
    pub fn post_bytes(
        &self,
        path: &str,
        params: &[(&str, &str)],
        body: &[u8],
    ) -> Result<Value, TeamError> {
        self.send(path, params, Some(("application/octet-stream", body)))
    }

    /// `POST {url}/{index}/select` of `params` as a form: long vectors and queries stay out of the
    /// URL (and of any proxy's access log).
    pub fn select(&self, params: &[(String, String)]) -> Result<Value, TeamError> {
        let mut form = String::new();
        for (k, v) in params {
            if !form.is_empty() {
                form.push('&');
            }
            form.push_str(&encode(k));
            form.push('=');
            form.push_str(&encode(v));
        }
        let path = format!("{}/select", self.index);
        self.send(
            &path,
            &[],
            Some(("application/x-www-form-urlencoded", form.as_bytes())),
        )
    }

    fn send(
        &self,
        path: &str,
        params: &[(&str, &str)],
        body: Option<(&str, &[u8])>,
    ) -> Result<Value, TeamError> {
        let mut target = format!("{}/{}", self.url, path.trim_start_matches('/'));
        let mut first = true;
        for (k, v) in params.iter().chain([("wt", "json")].iter()) {
            target.push(if first { '?' } else { '&' });
            first = false;
            target.push_str(&encode(k));
            target.push('=');
            target.push_str(&encode(v));
        }
        let result = match body {
            None => {
                let mut req = self.agent.get(&target);
                if let Some(a) = &self.auth {
                    req = req.header("authorization", a);
                }
                req.call()
            }
            Some((ctype, bytes)) => {
                let mut req = self.agent.post(&target).header("content-type", ctype);
                if let Some(a) = &self.auth {
                    req = req.header("authorization", a);
                }
                req.send(bytes)
            }
        };
        let mut resp = result.map_err(|e| self.transport(e))?;
        let status = resp.status().as_u16();
        let text = resp
            .body_mut()
            .with_config()
            .limit(MAX_ANSWER)
            .read_to_string()
            .map_err(|e| self.transport(e))?;
        if status == 401 || status == 403 {
            return Err(TeamError::Denied {
                url: self.url.clone(),
                status,
            });
        }
        let value: Result<Value, _> = serde_json::from_str(&text);
        if status != 200 {
            let detail = value
                .as_ref()
                .ok()
                .and_then(|v| v["error"]["msg"].as_str().map(str::to_string))
                .unwrap_or_else(|| text.chars().take(300).collect());
            return Err(TeamError::Engine {
                url: self.url.clone(),
                status,
                detail: detail
                    .chars()
                    .filter(|c| !c.is_control())
                    .take(500)
                    .collect(),
            });
        }
        value.map_err(|e| TeamError::Engine {
            url: self.url.clone(),
            status,
            detail: format!("the answer is not JSON: {e}"),
        })
    }

    fn transport(&self, e: ureq::Error) -> TeamError {
        let timed_out = match &e {
            ureq::Error::Timeout(_) => true,
            ureq::Error::Io(io) => matches!(
                io.kind(),
                std::io::ErrorKind::TimedOut | std::io::ErrorKind::WouldBlock
            ),
            _ => false,
        };
        let text = e.to_string();
        let lower = text.to_lowercase();
        let tls = matches!(
            e,
            ureq::Error::Tls(_) | ureq::Error::Rustls(_) | ureq::Error::Pem(_)
        ) || lower.contains("certificate")
            || lower.contains("handshake");
        if tls {
            TeamError::Tls {
                url: self.url.clone(),
                reason: text,
            }
        } else if timed_out {
            TeamError::Timeout {
                url: self.url.clone(),
                secs: self.timeout.as_secs().max(1),
            }
        } else {
            TeamError::Unreachable {
                url: self.url.clone(),
                reason: text,
            }
        }
    }
}

/// Percent-encoding of a query or form value: everything but unreserved characters.
fn encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_encoded_whole() {
        assert_eq!(encode("a b&c=d/é"), "a%20b%26c%3Dd%2F%C3%A9");
    }

    #[test]
    fn credentials_never_print() {
        let e = Engine::connect(
            "http://127.0.0.1:9/solr",
            "brain",
            Some(("ana".into(), "s3cret".into())),
            DEFAULT_TIMEOUT,
        )
        .expect("test setup");
        assert!(!format!("{e:?}").contains("s3cret"));
        assert!(!format!("{e:?}").contains("YW5h"));
    }

    #[test]
    fn a_ca_file_that_holds_no_certificate_is_refused() {
        let dir = tempfile::tempdir().expect("test setup");
        let f = dir.path().join("ca.pem");
        for (bytes, why) in [
            (&b"\x00\xffnot a pem at all"[..], "holds no certificate"),
            (&b""[..], "holds no certificate"),
            (
                &b"-----BEGIN CERTIFICATE-----\n!!!! not base64 !!!!\n-----END CERTIFICATE-----\n"
                    [..],
                "",
            ),
        ] {
            std::fs::write(&f, bytes).expect("write a test file");
            let e = Tls::from_env(Some(&f)).expect_err("a refusal");
            assert!(matches!(e, TeamError::Config(_)), "{e}");
            assert!(e.to_string().contains(why), "{e}");
        }
        // A folder, and a file past the size cap.
        assert!(Tls::from_env(Some(dir.path())).is_err());
        std::fs::write(&f, vec![b'A'; (MAX_CA + 1) as usize]).expect("write a test file");
        assert!(Tls::from_env(Some(&f)).is_err());
        assert!(Tls::from_env(Some(&dir.path().join("absent.pem"))).is_err());
    }

    #[test]
    fn a_world_readable_credentials_file_is_refused() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().expect("test setup");
        let f = dir.path().join("cred");
        std::fs::write(&f, "ana:pw\n").expect("write a test file");
        std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o644)).expect("test setup");
        assert!(
            credentials(Some(&f))
                .expect_err("an error")
                .to_string()
                .contains("chmod 600")
        );
        std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o600)).expect("test setup");
        assert_eq!(
            credentials(Some(&f)).expect("test setup"),
            Some(("ana".to_string(), "pw".to_string()))
        );
        std::fs::write(&f, "no colon\n").expect("write a test file");
        assert!(credentials(Some(&f)).is_err());
    }
}
