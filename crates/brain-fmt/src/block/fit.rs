//! Filling a block within its budget: the one owner of what every block is charged for — the
//! frame, the working-memory notes, each item as rendered with its line break, each section's
//! heading once — and of the final count of the whole block. `brain context` (its order: the
//! guaranteed records, whole threads, the best of the rest) and the briefing (its order: the
//! guaranteed records, then one item of each section in turn) both fill through it, so a block is
//! never over budget and both say the same of what was left out.

use std::collections::HashSet;

use super::item::{Item, LeftOut, Section};
use super::note::Note;
use super::{render, tokens};

/// A budget the block's frame alone is over.
#[derive(Debug, thiserror::Error)]
#[error("--budget {budget}: the block's frame alone (with the task) takes {frame} tokens")]
pub struct FrameTooBig {
    pub budget: usize,
    pub frame: usize,
}

/// A block being filled.
pub struct Fit {
    task: String,
    budget: usize,
    working: Vec<Note>,
    working_md: String,
    /// Tokens of the frame and the working memory: what the items are charged after.
    base: usize,
    used: usize,
    headings: HashSet<Section>,
    items: Vec<Item>,
    /// What was left out, and why.
    pub left_out: LeftOut,
}

/// The filled block.
pub struct Filled {
    pub working: Vec<Note>,
    pub items: Vec<Item>,
    pub left_out: LeftOut,
    pub markdown: String,
    /// Tokens of `markdown`, counted whole.
    pub tokens: usize,
    /// The whole block's count minus the sum of its parts as charged.
    pub slack: i64,
}

impl Fit {
    /// A block for `task` within `budget`: the frame charged first (an error when it alone is over
    /// the budget), then the working-memory notes, the last ones left out until they fit.
    pub fn new(
        task: &str,
        budget: usize,
        mut working: Vec<Note>,
        now: i64,
    ) -> Result<Fit, FrameTooBig> {
        let frame = tokens::count(&render::frame(task, budget));
        if frame > budget {
            return Err(FrameTooBig { budget, frame });
        }
        let mut working_md = render::working(&working, now);
        while !working.is_empty() && frame + tokens::count(&working_md) > budget {
            working.pop();
            working_md = render::working(&working, now);
        }
        let base = frame + tokens::count(&working_md);
        Ok(Fit {
            task: task.to_string(),
            budget,
            working,
            working_md,
            base,
            used: 0,
            headings: HashSet::new(),
            items: Vec::new(),
            left_out: LeftOut::default(),
        })
    }

    /// Tokens left for items.
    pub fn left(&self) -> usize {
        self.budget.saturating_sub(self.base + self.used)
    }

    /// What a heading of `s` costs now (nothing once one is in).
    pub fn heading_cost(&self, s: Section) -> usize {
        if self.headings.contains(&s) {
            0
        } else {
            tokens::count(&render::heading(s)) + 1
        }
    }

    /// What `item` costs as rendered, counted once (`item.tokens` is kept).
    pub fn price(item: &mut Item) -> usize {
        if item.tokens == 0 {
            item.tokens = tokens::count(&render::item_md(item));
        }
        item.tokens + 1
    }

    /// Take `item` if it fits (true); when it does not, nothing is counted: the caller says why
    /// it was left out.
    pub fn take(&mut self, mut item: Item) -> bool {
        let need = Fit::price(&mut item) + self.heading_cost(item.section);
        if need > self.left() {
            return false;
        }
        self.used += need;
        self.headings.insert(item.section);
        self.items.push(item);
        true
    }

    /// Take `item`, or count it as over budget.
    pub fn take_or_count(&mut self, item: Item) {
        if !self.take(item) {
            self.left_out.over_budget += 1;
        }
    }

    /// The block: its items grouped by section in the order each section was first taken (in
    /// each, the order taken), counted whole; items are dropped from the end until the whole
    /// fits (the sum of the parts can differ from the count of the whole by a token or two).
    pub fn finish(self) -> Filled {
        let mut order: Vec<Section> = Vec::new();
        for i in &self.items {
            if !order.contains(&i.section) {
                order.push(i.section);
            }
        }
        let mut items: Vec<Item> = Vec::with_capacity(self.items.len());
        for s in &order {
            items.extend(self.items.iter().filter(|i| i.section == *s).cloned());
        }
        let mut left_out = self.left_out;
        let charged = (self.base + self.used) as i64;
        let mut markdown = render::markdown(&self.task, self.budget, &self.working_md, &items);
        let mut whole = tokens::count(&markdown);
        let slack = whole as i64 - charged;
        while whole > self.budget && items.pop().is_some() {
            left_out.over_budget += 1;
            markdown = render::markdown(&self.task, self.budget, &self.working_md, &items);
            whole = tokens::count(&markdown);
        }
        Filled {
            working: self.working,
            items,
            left_out,
            markdown,
            tokens: whole,
            slack,
        }
    }
}
