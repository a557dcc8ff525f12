//! The memory block (`<memory-context>`, issue #23): its record (the items with their provenance,
//! what was left out, the working-memory notes), its markdown, its token counts, and the one
//! budget fitting every block goes through. Low enough that `fmt --context` renders a block record
//! from stdin without linking an index or a model; `brain context` and the briefing (brain-context)
//! gather what goes in.

pub mod fit;
pub mod item;
pub mod note;
pub mod render;
pub mod tokens;

pub use item::{Item, LeftOut, Section};
pub use note::Note;

/// A block as `brain context --json` prints it, read back: what `fmt --context` renders, from its
/// stdin alone (no index, no working-memory turn: those are `brain context`'s).
#[derive(Debug, Clone, serde::Deserialize)]
pub struct BlockRecord {
    pub task: String,
    pub budget: usize,
    #[serde(default)]
    pub working: Vec<Note>,
    #[serde(default)]
    pub items: Vec<Item>,
}

impl BlockRecord {
    /// The block's markdown at `now` (Unix seconds: working memory's deadlines read against it),
    /// byte for byte what `brain context` printed for it at that time.
    pub fn markdown(&self, now: i64) -> String {
        render::markdown(
            &self.task,
            self.budget,
            &render::working(&self.working, now),
            &self.items,
        )
    }
}
