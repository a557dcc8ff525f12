//! Who proposes the next change: a deterministic coordinate search (the default), or any LLM
//! command (`--proposer CMD`, as distillation runs one) whose answer is checked against the knob
//! registry like a strategy file.
//!
//! The coordinate search walks the knobs in an order the seed decides: it tries a knob one step
//! up, then one step down; a step that was kept is tried again in the same direction; when both
//! directions were reverted the knob's step halves and the next knob takes its turn. A knob whose
//! step fell below an eighth of its first (a whole number: below 1) is done; when every knob is,
//! the search is over. Same knobs, same seed, same scores: the same proposals.

use serde_json::Value;

use brain_rank::Strategy;
use brain_rank::knobs::{self, Kind, Knob};

use super::log::Experiment;

/// A change to try.
#[derive(Debug, Clone, PartialEq)]
pub struct Proposal {
    /// `(knob, new value)`, checked by [`knobs::set`] before it is tried.
    pub changes: Vec<(String, Value)>,
    pub hypothesis: String,
}

/// What proposes.
pub trait Proposer {
    /// The next change from `current` (the strategy kept so far), given the experiments so far;
    /// `None` when there is nothing left to try.
    fn next(
        &mut self,
        current: &Strategy,
        history: &[Experiment],
    ) -> Result<Option<Proposal>, String>;
    /// Whether the last proposal was kept.
    fn feedback(&mut self, kept: bool);
}

struct Cursor {
    knob: &'static Knob,
    step: f64,
    up: bool,
}

/// The deterministic default.
pub struct Coordinate {
    cursors: Vec<Cursor>,
    at: usize,
}

/// A stable number of `seed` and `key` (FNV-1a): the knobs' order.
fn order_key(seed: u64, key: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325 ^ seed;
    for b in key.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

impl Coordinate {
    /// A search over `keys` (numeric knobs of the registry), ordered by `seed`.
    pub fn new(keys: &[String], seed: u64) -> Result<Coordinate, String> {
        let mut cursors = Vec::new();
        for key in keys {
            let knob = knobs::find(key).ok_or_else(|| format!("unknown knob `{key}`"))?;
            if !matches!(knob.kind, Kind::Float | Kind::Int) || knob.key.ends_with(".*") {
                return Err(format!("`{key}` is not a number a search can move"));
            }
            cursors.push(Cursor {
                knob,
                step: knob.step,
                up: true,
            });
        }
        cursors.sort_by_key(|c| (order_key(seed, c.knob.key), c.knob.key));
        Ok(Coordinate { cursors, at: 0 })
    }

    fn min_step(k: &Knob) -> f64 {
        match k.kind {
            Kind::Int => 1.0,
            _ => k.step / 8.0,
        }
    }

    fn done(c: &Cursor) -> bool {
        c.step < Self::min_step(c.knob)
    }

    /// Both directions of the knob at the cursor failed: halve its step, go to the next knob.
    fn miss(&mut self) {
        if let Some(c) = self.cursors.get_mut(self.at) {
            c.step = match c.knob.kind {
                Kind::Int => (c.step / 2.0).floor(),
                _ => c.step / 2.0,
            };
            c.up = true;
        }
        if !self.cursors.is_empty() {
            self.at = (self.at + 1) % self.cursors.len();
        }
    }
}

fn number(v: &Value) -> Option<f64> {
    v.as_f64()
}

impl Proposer for Coordinate {
    fn next(&mut self, current: &Strategy, _: &[Experiment]) -> Result<Option<Proposal>, String> {
        // At most two tries per knob (up, down) before every knob was looked at once more.
        for _ in 0..=self.cursors.len() * 2 {
            if self.cursors.iter().all(Self::done) {
                return Ok(None);
            }
            let Some(c) = self.cursors.get(self.at) else {
                return Ok(None);
            };
            if Self::done(c) {
                self.at = (self.at + 1) % self.cursors.len();
                continue;
            }
            let key = c.knob.key;
            let old = knobs::get(current, key)
                .as_ref()
                .and_then(number)
                .ok_or_else(|| format!("`{key}` has no numeric value"))?;
            let delta = if c.up { c.step } else { -c.step };
            let new = (old + delta).clamp(c.knob.min, c.knob.max);
            // Rounded so a run's values read well and repeat exactly.
            let new = match c.knob.kind {
                Kind::Int => new.round(),
                _ => (new * 1e6).round() / 1e6,
            };
            if (new - old).abs() < f64::EPSILON {
                // At a bound: that direction is spent.
                if c.up {
                    if let Some(c) = self.cursors.get_mut(self.at) {
                        c.up = false;
                    }
                } else {
                    self.miss();
                }
                continue;
            }
            let value = match c.knob.kind {
                Kind::Int => Value::from(new as u64),
                _ => Value::from(new),
            };
            return Ok(Some(Proposal {
                hypothesis: format!(
                    "coordinate search: {key} {} by {} ({old} → {new})",
                    if c.up { "up" } else { "down" },
                    c.step
                ),
                changes: vec![(key.to_string(), value)],
            }));
        }
        Ok(None)
    }

    fn feedback(&mut self, kept: bool) {
        if kept {
            return; // the same knob, the same direction, once more
        }
        let Some(c) = self.cursors.get_mut(self.at) else {
            return;
        };
        if c.up {
            c.up = false;
        } else {
            self.miss();
        }
    }
}

/// `--proposer CMD`: the command reads a prompt (the knobs, the current values, the last ten
/// experiments) and answers one JSON object `{"changes": {"knob": value, …}, "hypothesis": "…"}`
/// (a fenced block or surrounding prose is fine: the first `{` to the last `}` is read).
pub struct Command {
    pub runner: brain_exec::Runner,
    pub keys: Vec<String>,
}

/// Experiments shown to a command proposer.
const HISTORY_SHOWN: usize = 10;

impl Command {
    /// The prompt for the next proposal.
    pub fn prompt(&self, current: &Strategy, history: &[Experiment]) -> String {
        let mut p = String::from(
            "You tune the search strategy of a local retrieval engine (BM25 + vectors + fusion). \
             Propose ONE change to try next, as a JSON object and nothing else:\n\
             {\"changes\": {\"<knob>\": <number>, ...}, \"hypothesis\": \"<why it should help>\"}\n\
             Change one to three knobs; stay inside each range. A change is kept only when the dev \
             score rises by more than the minimum gain and the train score does not drop.\n\nKnobs \
             (key, current value, range, meaning):\n",
        );
        for key in &self.keys {
            if let Some(k) = knobs::find(key) {
                let v = knobs::get(current, key).unwrap_or(Value::Null);
                p.push_str(&format!(
                    "- {key} = {v} [{} to {}]: {}\n",
                    k.min, k.max, k.meaning
                ));
            }
        }
        p.push_str("\nThe last experiments (newest last):\n");
        let from = history.len().saturating_sub(HISTORY_SHOWN);
        for e in &history[from..] {
            p.push_str(&format!(
                "- {} → {} (train {:.4}, dev {:.4}, delta {:+.4}): {}\n",
                serde_json::to_string(&e.changes).unwrap_or_default(),
                e.decision,
                e.train,
                e.dev,
                e.delta,
                e.hypothesis
            ));
        }
        p
    }
}

/// The JSON object in `text`.
pub fn parse_answer(text: &str) -> Result<Proposal, String> {
    let (a, b) = (text.find('{'), text.rfind('}'));
    let json = match (a, b) {
        (Some(a), Some(b)) if a < b => &text[a..=b],
        _ => return Err("the answer holds no JSON object".into()),
    };
    let v: Value = serde_json::from_str(json).map_err(|e| format!("the answer's JSON: {e}"))?;
    let changes = v
        .get("changes")
        .and_then(Value::as_object)
        .filter(|m| !m.is_empty())
        .ok_or("the answer has no `changes` object")?;
    Ok(Proposal {
        changes: changes
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect(),
        hypothesis: v
            .get("hypothesis")
            .and_then(Value::as_str)
            .unwrap_or("(none given)")
            .chars()
            .take(300)
            .collect(),
    })
}

impl Proposer for Command {
    fn next(
        &mut self,
        current: &Strategy,
        history: &[Experiment],
    ) -> Result<Option<Proposal>, String> {
        let out = self
            .runner
            .run(&self.prompt(current, history), &[])
            .map_err(|e| e.to_string())?;
        parse_answer(&out).map(Some)
    }

    fn feedback(&mut self, _: bool) {}
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_search_goes_up_down_then_halves_and_ends() {
        let mut c = Coordinate::new(&["lex.title".into()], 1).expect("knobs");
        let s = Strategy::default();
        let p = c.next(&s, &[]).expect("ok").expect("a proposal");
        assert_eq!(p.changes, [("lex.title".to_string(), Value::from(1.5))]);
        c.feedback(false);
        let p = c.next(&s, &[]).expect("ok").expect("down");
        assert_eq!(p.changes[0].1, Value::from(0.5));
        c.feedback(false);
        let p = c.next(&s, &[]).expect("ok").expect("half a step up");
        assert_eq!(p.changes[0].1, Value::from(1.25));
        // Keep missing: the step halves to an eighth, then the search is over.
        let mut n = 0;
        while c.next(&s, &[]).expect("ok").is_some() {
            c.feedback(false);
            n += 1;
            assert!(n < 20);
        }
        assert!(Coordinate::new(&["rerank.model".into()], 1).is_err());
        assert!(Coordinate::new(&["nope".into()], 1).is_err());
    }

    #[test]
    fn an_answer_is_read_from_prose_and_fences() {
        let p = parse_answer(
            "Sure!\n```json\n{\"changes\": {\"lex.title\": 2}, \"hypothesis\": \"titles\"}\n```",
        )
        .expect("parse");
        assert_eq!(p.changes, [("lex.title".to_string(), Value::from(2))]);
        assert!(parse_answer("no").is_err());
        assert!(parse_answer("{\"changes\": {}}").is_err());
    }
}
