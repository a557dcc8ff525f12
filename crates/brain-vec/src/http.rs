//! HTTP embedders for users with a GPU box: OpenAI-compatible `POST /v1/embeddings` (llama.cpp server,
//! vLLM, LM Studio, OpenAI itself) and Ollama `POST /api/embed`.
//!
//! Every request has a connect timeout and an overall timeout; a server that accepts the connection and
//! never answers is a [`VecError::Timeout`] (exit 66), never a hang, and not asked again. A refused
//! connection, 429 and 5xx are tried again ([`ATTEMPTS`] in all, waiting [`BACKOFF`] then four times that); an
//! answer is read up to [`MAX_ANSWER`] bytes. Returned vectors are checked (the count asked for,
//! one size, finite, not all zero) and L2-normalized here, whatever the server does. `https://`
//! servers are verified against Mozilla's roots. A key (brain.yaml's `embedder.key_env` names its
//! variable) goes in the `Authorization: Bearer` header only: it is never stored, and an error that
//! quotes the server's answer has it blanked out.

use std::time::Duration;

use serde_json::{Value, json};

use crate::VecError;
use crate::embed::{Embedder, normalize};

/// Connect timeout: a LAN or loopback server accepts within milliseconds; 3 s covers a waking laptop.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(3);

/// Tries of one batch: a server restarting or shedding load (429, 503) answers the next one.
pub const ATTEMPTS: u32 = 3;

/// The wait before the second try (the third waits four times as long).
pub const BACKOFF: Duration = Duration::from_millis(250);

/// The longest answer read: 32 vectors of 4,096 numbers as JSON are about 3 MB.
pub const MAX_ANSWER: u64 = 64 << 20;

/// Which wire protocol.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Api {
    /// `POST {base}/v1/embeddings` with `{"model", "input": [...]}` → `{"data": [{"index", "embedding"}]}`.
    OpenAi,
    /// `POST {base}/api/embed` with `{"model", "input": [...]}` → `{"embeddings": [[...]]}`.
    Ollama,
}

/// An HTTP embedder. Its dimension is learned from a probe request at construction.
pub struct Http {
    api: Api,
    url: String,
    model: String,
    timeout: Duration,
    agent: ureq::Agent,
    dims: usize,
    /// The bearer key, when the server needs one.
    key: Option<String>,
}

impl Http {
    /// Connect to `base` and probe the vector size with one tiny request (so a dead server fails here,
    /// within `timeout`).
    pub fn new(
        api: Api,
        base: &str,
        model: &str,
        timeout: Duration,
        key: Option<String>,
    ) -> Result<Http, VecError> {
        let path = match api {
            Api::OpenAi => "/v1/embeddings",
            Api::Ollama => "/api/embed",
        };
        let url = format!("{}{path}", base.trim_end_matches('/'));
        let config = ureq::Agent::config_builder()
            .timeout_connect(Some(CONNECT_TIMEOUT.min(timeout)))
            .timeout_global(Some(timeout))
            .http_status_as_error(false)
            .build();
        let mut h = Http {
            api,
            url,
            model: model.to_string(),
            timeout,
            agent: config.into(),
            dims: 0,
            key,
        };
        let probe = h.request(&["dimension probe"])?;
        h.dims = probe.first().map(Vec::len).unwrap_or(0);
        if h.dims == 0 {
            return Err(h.backend("the server returned an empty vector".into()));
        }
        Ok(h)
    }

    /// An error of the server at `url`; its key, if the reason quotes it, blanked out.
    fn backend(&self, reason: String) -> VecError {
        let reason = match &self.key {
            Some(k) if reason.contains(k.as_str()) => reason.replace(k.as_str(), "[REDACTED]"),
            _ => reason,
        };
        VecError::Backend {
            url: self.url.clone(),
            reason,
        }
    }

    /// One batch, tried again after a refused connection, 429 or 5xx.
    fn request(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, VecError> {
        let mut wait = BACKOFF;
        let mut attempt = 1;
        loop {
            match self.request_once(texts) {
                Err((_, true)) if attempt < ATTEMPTS => {
                    std::thread::sleep(wait);
                    wait *= 4;
                    attempt += 1;
                }
                Err((e, _)) => return Err(e),
                Ok(rows) => return Ok(rows),
            }
        }
    }

    /// One try: the vectors, or the error and whether another try may answer.
    fn request_once(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, (VecError, bool)> {
        let body = json!({ "model": self.model, "input": texts }).to_string();
        let timeout = || VecError::Timeout {
            url: self.url.clone(),
            secs: self.timeout.as_secs().max(1),
        };
        let map_err = |e: ureq::Error| match e {
            // A server silent for the whole timeout is not asked again: the next try would
            // wait as long.
            ureq::Error::Timeout(_) => (timeout(), false),
            ureq::Error::Io(io)
                if io.kind() == std::io::ErrorKind::TimedOut
                    || io.kind() == std::io::ErrorKind::WouldBlock =>
            {
                (timeout(), false)
            }
            ureq::Error::Io(_) | ureq::Error::ConnectionFailed | ureq::Error::HostNotFound => {
                (self.backend(e.to_string()), true)
            }
            other => (self.backend(other.to_string()), false),
        };
        let mut req = self
            .agent
            .post(&self.url)
            .header("content-type", "application/json");
        if let Some(k) = &self.key {
            req = req.header("authorization", &format!("Bearer {k}"));
        }
        let mut resp = req.send(body.as_bytes()).map_err(map_err)?;
        let status = resp.status().as_u16();
        let text = resp
            .body_mut()
            .with_config()
            .limit(MAX_ANSWER)
            .read_to_string()
            .map_err(map_err)?;
        if status != 200 {
            let head: String = text.chars().take(300).collect();
            let again = status == 429 || (500..600).contains(&status);
            return Err((self.backend(format!("HTTP {status}: {head}")), again));
        }
        let bad = |reason: String| (self.backend(reason), false);
        let v: Value =
            serde_json::from_str(&text).map_err(|e| bad(format!("answer is not JSON: {e}")))?;
        let mut rows = parse(self.api, &v).ok_or_else(|| bad("answer has no embeddings".into()))?;
        if rows.len() != texts.len() {
            return Err(bad(format!(
                "asked for {} embeddings, got {}",
                texts.len(),
                rows.len()
            )));
        }
        if let Some(i) = rows
            .iter()
            .position(|r| r.iter().any(|x| !x.is_finite()) || r.iter().all(|&x| x == 0.0))
        {
            return Err(bad(format!(
                "embedding {i} is all zeros or not finite numbers"
            )));
        }
        rows.iter_mut().for_each(|r| normalize(r));
        Ok(rows)
    }
}

/// The vectors of an answer, in input order.
fn parse(api: Api, v: &Value) -> Option<Vec<Vec<f32>>> {
    let floats = |x: &Value| -> Option<Vec<f32>> {
        x.as_array()?
            .iter()
            .map(|f| f.as_f64().map(|f| f as f32))
            .collect()
    };
    match api {
        Api::Ollama => v["embeddings"].as_array()?.iter().map(floats).collect(),
        Api::OpenAi => {
            let mut rows: Vec<(u64, Vec<f32>)> = v["data"]
                .as_array()?
                .iter()
                .enumerate()
                .map(|(i, d)| {
                    Some((
                        d["index"].as_u64().unwrap_or(i as u64),
                        floats(&d["embedding"])?,
                    ))
                })
                .collect::<Option<_>>()?;
            rows.sort_by_key(|r| r.0);
            Some(rows.into_iter().map(|r| r.1).collect())
        }
    }
}

/// Texts per request: small enough that a CPU-only Ollama answers well within the default timeout.
const REQUEST_BATCH: usize = 32;

impl Embedder for Http {
    fn model_id(&self) -> String {
        let kind = match self.api {
            Api::OpenAi => "openai",
            Api::Ollama => "ollama",
        };
        format!("{kind}:{}", self.model)
    }

    fn dims(&self) -> usize {
        self.dims
    }

    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, VecError> {
        let mut out = Vec::with_capacity(texts.len());
        for batch in texts.chunks(REQUEST_BATCH) {
            let rows = self.request(batch)?;
            if rows.iter().any(|r| r.len() != self.dims) {
                return Err(self.backend(format!("vector size changed from {}", self.dims)));
            }
            out.extend(rows);
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn openai_answers_are_put_back_in_input_order() {
        let v = json!({"data": [{"index": 1, "embedding": [0.0, 2.0]}, {"index": 0, "embedding": [1.0, 0.0]}]});
        assert_eq!(
            parse(Api::OpenAi, &v),
            Some(vec![vec![1.0, 0.0], vec![0.0, 2.0]])
        );
        assert_eq!(
            parse(Api::Ollama, &json!({"embeddings": [[1, 2]]})),
            Some(vec![vec![1.0, 2.0]])
        );
        assert_eq!(parse(Api::Ollama, &json!({"error": "no model"})), None);
    }
}
