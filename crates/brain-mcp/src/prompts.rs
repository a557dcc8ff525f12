//! MCP prompts: `brief` — the session-start briefing of a project as a user message, for clients
//! that offer prompts (a slash command) rather than calling a tool; the same block as the `context`
//! tool without a task, `brain brief` and the SessionStart hooks.

use brain_doc::Classified;
use serde_json::{Value, json};

use crate::handles::Handles;
use crate::jsonrpc::{INVALID_PARAMS, RpcError};

/// `prompts/list`.
pub fn list() -> Value {
    json!({"prompts": [{
        "name": "brief",
        "title": "Briefing from memory",
        "description": "This project's working memory, current decisions and facts, open tasks and contradictions, what was tried and failed, and the last sessions — each cited, within a token budget.",
        "arguments": [
            {"name": "project", "description": "Your working directory or a project name (default: every project)", "required": false},
            {"name": "budget", "description": "Most tokens (cl100k_base), default 1500", "required": false}
        ]
    }]})
}

/// `prompts/get`.
pub fn get(handles: &mut Handles, params: &Value) -> Result<Value, RpcError> {
    let name = params.get("name").and_then(Value::as_str).unwrap_or("");
    if name != "brief" {
        return Err(RpcError::new(
            INVALID_PARAMS,
            format!("unknown prompt `{name}` (prompts: brief)"),
        ));
    }
    let args = params.get("arguments");
    let arg = |k: &str| {
        args.and_then(|a| a.get(k))
            .and_then(Value::as_str)
            .map(str::to_string)
            .filter(|s| !s.trim().is_empty())
    };
    let budget = match arg("budget") {
        None => None,
        Some(b) => Some(b.trim().parse::<usize>().map_err(|_| {
            RpcError::new(
                INVALID_PARAMS,
                format!("budget `{b}` is not a number of tokens"),
            )
        })?),
    };
    let now = brain_rank::clock::now();
    let engine = handles
        .engine()
        .map_err(|e| RpcError::new(INVALID_PARAMS, e.message))?;
    let block = crate::tools::context::brief(engine, arg("project"), budget, &now)
        .map_err(|e| RpcError::new(INVALID_PARAMS, format!("{e} ({})", e.code().as_str())))?;
    Ok(json!({
        "description": block.task,
        "messages": [{"role": "user", "content": {"type": "text", "text": block.markdown}}]
    }))
}
