//! Distillation (seed 004, "The Distillation Pipeline"): each finished session is compressed by the
//! user's own LLM command into a ~30-line artifact (Goal / What Happened / Key Decisions / What Was
//! Rejected / Technologies / Concepts / Tags) that is written into the `distilled` collection and
//! indexed.
//!
//! * [`template`] — the versioned prompt (built in, or `--template FILE`);
//! * [`budget`] — the 8,000-character cut that keeps user turns, decisions and tool lines;
//! * [`prompt`] — session doc → [`PromptRecord`] (what `distill-prompt` prints);
//! * running the command (`sh -c`, timeout, process-group kill, rate-limit backoff, `--jobs`) is the
//!   `brain-exec` crate, shared with query expansion;
//! * [`validate`] — the answer's frontmatter and sections, before anything is written;
//! * [`artifact`] — the validated answer → the stamped distilled doc;
//! * [`queue`] — what is pending (queue file + stale prompt versions), and dequeuing under the lock;
//! * [`distill`] — `brain distill` end to end.

pub mod artifact;
pub mod budget;
pub mod distill;
pub mod extract;
pub mod prompt;
pub mod queue;
pub mod template;
pub mod validate;

pub use brain_exec::{RunError, Runner};
pub use distill::{DistillError, Options, Summary};
pub use prompt::PromptRecord;

use std::time::Duration;

/// Seed 004: `wait = 60 * (2 ** attempt)  # 60s, 120s, 240s`.
pub const DEFAULT_BACKOFF: Duration = Duration::from_secs(60);
/// Seed 004: `for attempt in range(3)` — three waits (60, 120, 240 s) before giving up.
pub const DEFAULT_RETRIES: u32 = 3;

pub use template::Template;
