//! `multi_get` — several documents by a glob over `collection/path` or a comma-separated list, each
//! under a per-file byte cap and all under a total cap; what is skipped gets a note saying why and
//! how to get it. Once the total cap stops a document, the rest are only counted (`omitted`), so a
//! broad glob cannot flood the answer with notes.

use brain_doc::{ErrorCode, ErrorRecord, docid};
use brain_resolve::{Body, Resolver, Skip, read_doc};
use serde::Deserialize;
use serde_json::{Value, json};

use super::{Ctx, Output, Tool, decode, descriptor, input_schema};
use brain_doc::fence;

pub const TOOL: Tool = Tool {
    name: "multi_get",
    describe,
    run,
    writes: false,
};

/// Per-file cap: QMD's default (10 KB).
const DEFAULT_MAX_BYTES: u64 = 10_240;
/// Cap on all documents of one call together (about 50k tokens).
const DEFAULT_MAX_TOTAL_BYTES: u64 = 200_000;

#[derive(Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct Args {
    /// A glob over collection/path, or uris and #docids separated by commas.
    #[schemars(length(min = 1))]
    pattern: String,
    /// At most this many lines per document.
    #[schemars(range(min = 1))]
    max_lines: Option<usize>,
    /// Skip documents larger than this (default 10240).
    #[schemars(range(min = 1))]
    max_bytes: Option<u64>,
    /// Bytes in all (default 200000).
    #[schemars(range(min = 1))]
    max_total_bytes: Option<u64>,
    /// Number the lines.
    #[serde(default)]
    line_numbers: bool,
}

fn describe() -> Value {
    let input = input_schema::<Args>();
    let doc = json!({
        "type": "object",
        "properties": {
            "uri": {"type": "string"}, "docid": {"type": "string"}, "collection": {"type": "string"},
            "text": {"type": "string"}, "skipped": {"type": "string"}, "untrusted": {"type": "boolean"}
        },
        "required": ["uri", "docid", "collection", "untrusted"]
    });
    let output = json!({
        "type": "object",
        "properties": {
            "documents": {"type": "array", "items": doc},
            "errors": {"type": "array", "items": {"type": "string"}},
            "omitted": {"type": "integer", "description": "Matching documents not read because maxTotalBytes was reached."}
        },
        "required": ["documents", "errors", "omitted"]
    });
    descriptor(
        "multi_get",
        "Get several documents",
        "Read several documents by a glob over collection/path or a comma-separated list of refs; oversized ones are skipped with a note.",
        input,
        output,
    )
}

fn run(ctx: &mut Ctx<'_>, args: Value) -> Result<Output, ErrorRecord> {
    let a: Args = decode(args)?;
    let home = ctx.handles.home().clone();
    let (config, ids) = crate::handles::docs(ctx.handles)?;
    let selected = Resolver::collections_only(config, &*ids)
        .select(&a.pattern)
        .map_err(super::docs_error)?;
    if selected.is_empty() {
        return Err(ErrorRecord::new(
            ErrorCode::NoResults,
            format!("no document matches `{}`", a.pattern),
            "globs match collection/path of indexed documents, e.g. `brain/2026/04/*.md`",
        ));
    }
    let (max, mut budget) = (
        a.max_bytes.unwrap_or(DEFAULT_MAX_BYTES),
        a.max_total_bytes.unwrap_or(DEFAULT_MAX_TOTAL_BYTES),
    );
    let (mut docs, mut errors, mut text, mut omitted) =
        (Vec::new(), Vec::new(), String::new(), 0usize);
    let mut read: Vec<String> = Vec::new();
    for (reference, found) in selected {
        if omitted > 0 {
            omitted += 1;
            continue;
        }
        let doc = match found {
            Ok(d) => d,
            Err(e) => {
                text.push_str(&format!("[error: {reference}: {e}]\n\n"));
                errors.push(format!("{reference}: {e}"));
                continue;
            }
        };
        let uri = doc.name();
        let collection = doc.collection().unwrap_or_default().to_string();
        let low = config.is_low_trust(&collection);
        let mut entry = json!({
            "uri": uri, "docid": docid(doc.id.as_deref().unwrap_or_default()),
            "collection": collection, "untrusted": low,
        });
        let skipped = match read_doc(&doc, max.min(budget), a.max_lines, a.line_numbers) {
            Body::Text(lines) => {
                budget = budget.saturating_sub(lines.text.len() as u64);
                let body = if low {
                    fence::block(&lines.text, &uri)
                } else {
                    lines.text
                };
                text.push_str(&format!("==> {uri} <==\n{body}\n"));
                entry["text"] = body.into();
                if let Some(id) = doc.id.clone() {
                    read.push(id);
                }
                None
            }
            Body::Skipped(Skip::TooBig { size, .. }) if size <= max => {
                omitted = 1;
                continue;
            }
            Body::Skipped(Skip::TooBig { size, max_bytes }) => {
                Some(format!("{size} bytes > maxBytes {max_bytes}"))
            }
            Body::Skipped(Skip::Unreadable(e)) => Some(e),
        };
        if let Some(why) = skipped {
            text.push_str(&format!(
                "[skipped: {uri}: {why}; read it with get {{\"file\": \"{uri}\"}}]\n\n"
            ));
            entry["skipped"] = why.into();
        }
        docs.push(entry);
    }
    if omitted > 0 {
        text.push_str(&format!(
            "[{omitted} more matching document(s) not read: maxTotalBytes reached; narrow the pattern, raise maxTotalBytes or use get]\n"
        ));
    }
    let ids: Vec<&str> = read.iter().map(String::as_str).collect();
    let _ = brain_store::access::record(&home, &ids, brain_store::access::Access::Read, "mcp");
    Ok(Output {
        count: docs.len(),
        structured: json!({"documents": docs, "errors": errors, "omitted": omitted}),
        text,
    })
}
