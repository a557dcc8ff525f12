//! `brain://{collection}/{+path}` resources: the template for discovery and `resources/read`.
//! Documents are found with the `query` tool, so `resources/list` is empty (as QMD's is).

use brain_resolve::{Resolver, read_lines};
use serde_json::{Value, json};

use crate::handles::Handles;
use crate::jsonrpc::{INVALID_PARAMS, RpcError};
use brain_doc::fence;

/// Largest resource read, as `brain get`'s default cap; a longer document ends with a note.
const MAX_BYTES: usize = 1_000_000;

/// The `resources/templates/list` result.
pub fn templates() -> Value {
    json!({"resourceTemplates": [{
        "uriTemplate": "brain://{collection}/{+path}",
        "name": "document",
        "title": "Brain document",
        "description": "A markdown document of a collection (sessions, notes, distilled summaries, browser days). Find them with the `query` tool.",
        "mimeType": "text/markdown",
    }]})
}

/// The `resources/list` result.
pub fn list() -> Value {
    json!({"resources": []})
}

/// The `resources/read` result for `params.uri`; an unknown document is `-32602` with the uri in
/// `data` (SEP-2164).
pub fn read(h: &mut Handles, params: &Value) -> Result<Value, RpcError> {
    let Some(uri) = params.get("uri").and_then(Value::as_str) else {
        return Err(RpcError::new(
            INVALID_PARAMS,
            "resources/read needs `uri` (a string)",
        ));
    };
    let not_found = |why: String| {
        RpcError::new(INVALID_PARAMS, format!("resource not found: {why}"))
            .with_data(json!({"uri": uri}))
    };
    if !uri.starts_with("brain://") {
        return Err(not_found(format!("`{uri}` is not a brain:// uri")));
    }
    let (config, ids) = crate::handles::docs(h).map_err(|e| not_found(e.message))?;
    let doc = Resolver::collections_only(config, &*ids)
        .resolve(uri)
        .map_err(|e| not_found(e.to_string()))?;
    let lines =
        read_lines(&doc.file, 1, None, false, MAX_BYTES).map_err(|e| not_found(e.to_string()))?;
    let mut text = lines.text;
    if let Some(at) = lines.stopped_at {
        text.push_str(&format!(
            "\n[stopped at line {at} of {}: read the rest with the get tool]\n",
            lines.total
        ));
    }
    if config.is_low_trust(doc.collection().unwrap_or_default()) {
        text = fence::block(&text, uri);
    }
    Ok(json!({"contents": [{"uri": uri, "mimeType": "text/markdown", "text": text}]}))
}
