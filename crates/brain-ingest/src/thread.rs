//! A conversation thread being accumulated: the main session or one subagent. Pairs tool calls with
//! their results by id so failed calls are marked.

use std::collections::HashMap;

use brain_doc::command::Outcome;
use serde_json::Value;

use crate::session::{Role, Session, Subagent};
use crate::tools::{self, ToolLine, clip};

/// Longest error line kept after a failed tool call.
const ERROR_MAX: usize = 160;

/// Accumulates turns, tool lines and reasoning for one thread.
#[derive(Debug, Default)]
pub struct Thread {
    /// The session-shaped content (only turns/tools/reasoning/models are used for subagents).
    pub s: Session,
    /// tool_use id → index into `s.tools`.
    pending: HashMap<String, usize>,
    /// The agent starts a failed shell command's output with `Exit code N` (Claude Code 2.x):
    /// [`tools::outcome`].
    pub exit_codes: bool,
}

impl Thread {
    /// Record a tool call with `id`.
    pub fn tool_use(&mut self, id: Option<&str>, name: &str, input: &Value) {
        let summary = tools::summarize(name, input);
        if let Some(id) = id {
            self.pending.insert(id.to_string(), self.s.tools.len());
        }
        self.s.tools.push(ToolLine {
            summary,
            error: None,
            ended: Outcome::Failed,
            refs: crate::refs::refs_of(name, input),
        });
    }

    /// Record the result of the tool call `id`; only failures leave a trace (a first error line). A
    /// result whose call is not in this transcript (a resumed or truncated session) gets a line of its
    /// own so it is not lost.
    pub fn tool_result(&mut self, id: Option<&str>, is_error: bool, text: &str) {
        let Some(&idx) = id.and_then(|id| self.pending.get(id)) else {
            let first = clip(&tools::one_line(text), ERROR_MAX);
            let error = is_error.then(|| {
                if first.is_empty() {
                    "failed".to_string()
                } else {
                    first.clone()
                }
            });
            let summary = if is_error {
                "result of an earlier call".to_string()
            } else {
                format!("result of an earlier call: {first}")
            };
            self.s.tools.push(ToolLine {
                summary,
                error,
                ended: Outcome::Failed,
                refs: Vec::new(),
            });
            return;
        };
        let Some(t) = self.s.tools.get_mut(idx) else {
            return;
        };
        // A shell whose output shows a failure its exit status did not flag failed too.
        let shell = brain_doc::command::SHELL_TOOLS.iter().any(|s| {
            t.summary
                .strip_prefix(s)
                .is_some_and(|r| r.starts_with(':'))
        });
        if shell && !is_error && t.summary.contains("git commit") {
            for r in crate::refs::commits_in_output(text) {
                if !t.refs.contains(&r) {
                    t.refs.push(r);
                }
            }
        }
        let failed = is_error || (shell && tools::shows_failure(text));
        if !failed {
            return;
        }
        let (ended, said) = if is_error {
            tools::outcome(text, shell, self.exit_codes)
        } else {
            (Outcome::Failed, None)
        };
        t.ended = ended;
        let note = ended.note(&t.summary);
        match ended {
            Outcome::Declined => {
                // What the user said instead stays in the conversation where they said it.
                t.error = said.clone();
                let text = match said {
                    Some(s) => format!("{note}\n> {}", tools::one_paragraph(&s)),
                    None => note,
                };
                self.s.turns.push(crate::session::Turn {
                    role: Role::Note,
                    text,
                });
            }
            Outcome::Failed | Outcome::Refused => {
                let line = tools::one_line(text);
                t.error = Some(if line.is_empty() {
                    "failed".into()
                } else {
                    clip(&line, ERROR_MAX)
                });
                // The evidence stays in the conversation where it happened: people search for
                // the error messages they saw.
                if let Some(excerpt) = tools::error_excerpt(text) {
                    let fence = brain_doc::blocks::fence_for(&excerpt);
                    self.s.turns.push(crate::session::Turn {
                        role: Role::Note,
                        text: format!("{note}\n{fence}text\n{excerpt}\n{fence}"),
                    });
                }
            }
        }
    }

    /// Mark the tool call `id` as turned down by the user (Cursor's `userDecision: rejected`): its
    /// line says so; it is no error anyone searches for.
    pub fn reject(&mut self, id: Option<&str>) {
        let idx = match id.and_then(|id| self.pending.get(id)) {
            Some(&i) => i,
            None => self.s.tools.len().saturating_sub(1),
        };
        if let Some(t) = self.s.tools.get_mut(idx) {
            t.error = None;
            t.ended = Outcome::Declined;
            let note = Outcome::Declined.note(&t.summary);
            self.s.turns.push(crate::session::Turn {
                role: Role::Note,
                text: note,
            });
        }
    }

    /// Record a thinking block (empty ones are skipped).
    pub fn reasoning(&mut self, text: &str) {
        let t = text.trim();
        if !t.is_empty() {
            self.s.reasoning.push(t.to_string());
        }
    }

    /// The session this thread accumulated.
    pub fn into_session(self) -> Session {
        self.s
    }

    /// Turn this thread into a subagent record.
    pub fn into_subagent(
        self,
        id: String,
        kind: Option<String>,
        description: Option<String>,
    ) -> Subagent {
        let prompt = self
            .s
            .turns
            .iter()
            .find(|t| t.role == Role::User)
            .map(|t| t.text.clone())
            .unwrap_or_default();
        let result = self
            .s
            .turns
            .iter()
            .rev()
            .find(|t| t.role == Role::Assistant)
            .map(|t| t.text.clone())
            .unwrap_or_default();
        Subagent {
            id,
            kind,
            description,
            prompt: clip(&prompt, 2000),
            result: clip(&result, 4000),
            tools: self.s.tools,
        }
    }
}
