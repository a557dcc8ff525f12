//! `get` — one document by uri, `collection/path` or `#docid` (QMD's `file` argument, with an optional
//! `:from[:count]` suffix), from `fromLine` for `maxLines` lines, under a byte cap; optionally numbered.

use brain_doc::{ErrorRecord, docid};
use brain_resolve::{Resolver, read_lines, split_range};
use serde::Deserialize;
use serde_json::{Value, json};

use super::{Ctx, Output, Tool, decode, descriptor, input_schema};
use brain_doc::fence;

pub const TOOL: Tool = Tool {
    name: "get",
    describe,
    run,
    writes: false,
};

/// Default byte cap of one `get` (about 25k tokens): a long transcript is read in parts.
const DEFAULT_MAX_BYTES: usize = 100_000;

#[derive(Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct Args {
    /// A result's uri, collection/path or #docid; `ref:100:20` reads 20 lines from line 100.
    #[schemars(length(min = 1))]
    file: String,
    /// Start at this 1-based line (a result's `line`).
    #[schemars(range(min = 1))]
    from_line: Option<usize>,
    /// Read at most this many lines.
    #[schemars(range(min = 1))]
    max_lines: Option<usize>,
    /// Stop before this many bytes (default 100000).
    #[schemars(range(min = 1))]
    max_bytes: Option<usize>,
    /// Number the lines.
    #[serde(default)]
    line_numbers: bool,
}

fn describe() -> Value {
    let input = input_schema::<Args>();
    let output = json!({
        "type": "object",
        "properties": {
            "uri": {"type": "string"}, "docid": {"type": "string"}, "collection": {"type": "string"},
            "fromLine": {"type": "integer"}, "lines": {"type": "integer"}, "totalLines": {"type": "integer"},
            "nextLine": {"type": ["integer", "null"]}, "text": {"type": "string"}, "untrusted": {"type": "boolean"}
        },
        "required": ["uri", "docid", "collection", "fromLine", "lines", "totalLines", "nextLine", "text", "untrusted"]
    });
    descriptor(
        "get",
        "Get document",
        "Read a document (or lines of it) by the uri, path or #docid of a result; a long one is read in parts (nextLine).",
        input,
        output,
    )
}

fn run(ctx: &mut Ctx<'_>, args: Value) -> Result<Output, ErrorRecord> {
    let a: Args = decode(args)?;
    let home = ctx.handles.home().clone();
    let (reference, from, count) = split_range(&a.file);
    let (config, ids) = crate::handles::docs(ctx.handles)?;
    let doc = Resolver::collections_only(config, &*ids)
        .resolve(reference)
        .map_err(super::docs_error)?;
    let from = a.from_line.or(from).unwrap_or(1);
    let lines = read_lines(
        &doc.file,
        from,
        a.max_lines.or(count),
        a.line_numbers,
        a.max_bytes.unwrap_or(DEFAULT_MAX_BYTES),
    )
    .map_err(super::docs_error)?;
    let id = doc.id.clone().unwrap_or_default();
    // Rehearsal: an agent's read keeps a record close (never breaks the read).
    let _ = brain_store::access::record(&home, &[&id], brain_store::access::Access::Read, "mcp");
    // A read of a recent query's hit is a click of it (issue #24's implicit judgments).
    brain_store::telemetry::clicks::record_get(&home, "mcp", &brain_doc::docid(&id));
    let uri = doc.name();
    let collection = doc.collection().unwrap_or_default().to_string();
    let low = config.is_low_trust(&collection);
    let next = lines.more_after();
    let mut text = if low {
        fence::block(&lines.text, &uri)
    } else {
        lines.text.clone()
    };
    if let Some(n) = next {
        text.push_str(&format!(
            "\n[lines {}-{} of {}; continue with get {{\"file\": \"{uri}\", \"fromLine\": {n}}}]\n",
            lines.from,
            lines.from + lines.count.saturating_sub(1),
            lines.total
        ));
    }
    Ok(Output {
        count: 1,
        structured: json!({
            "uri": uri, "docid": docid(&id), "collection": collection, "fromLine": lines.from,
            "lines": lines.count, "totalLines": lines.total, "nextLine": next,
            "text": if low { fence::block(&lines.text, &uri) } else { lines.text },
            "untrusted": low,
        }),
        text,
    })
}
