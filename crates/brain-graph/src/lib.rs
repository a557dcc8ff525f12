//! The memory graph (seed 003, issue #23): entities with their aliases, typed relations between
//! records, and what records mention — read from the registry, where the index keeps what each
//! document says ([`brain_store::LinkRow`], [`brain_store::EntityDef`]).
//!
//! * [`names`] — entities and strict name resolution (case-folded exact; ambiguity reported).
//! * [`graph`] — nodes (documents, entities), edges with resolved targets, `related` traversal,
//!   contradictions.
//! * [`suggest`] — names mentioned often enough to deserve an entity (seed 001).
//! * [`view`] — what `brain entity NAME` shows: summary, facts, aliases, related, timeline.
//! * [`facts`] — an entity's `items.json` facts as records of the inbox (`lexindex --all` syncs
//!   them; `brain forget` edits a fact in its file).

pub mod ask;
pub mod facts;
pub mod graph;
pub mod names;
pub mod render;
pub mod suggest;
pub mod view;

pub use graph::{Edge, Graph, Node, Reached, ReachedRecord, Target};
pub use names::{Entities, Entity, Lookup, Named, named_in};
pub use suggest::{MIN_MENTIONS, Suggestion, suggest};
pub use view::{EntityView, Fact, view};
