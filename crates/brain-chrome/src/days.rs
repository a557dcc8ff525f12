//! One local day of browsing, accumulated visit by visit: repeated visits to a URL folded into one
//! entry with a count, searches de-duplicated, domains and cluster topics counted.

use std::collections::{HashMap, HashSet};

use jiff::civil::Date;

/// A URL visited one or more times in the day.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Page {
    /// WebKit time of the first visit of the day.
    pub first: i64,
    /// Display domain (`github.com`).
    pub domain: String,
    /// The page title (may be empty).
    pub title: String,
    /// The URL without tracking parameters.
    pub url: String,
    /// How many visits were folded into this entry.
    pub count: u64,
}

/// A search of the day.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Search {
    /// WebKit time of the first time the terms were searched that day.
    pub time: i64,
    /// The engine's name.
    pub engine: String,
    /// The cleaned terms.
    pub terms: String,
}

/// A cluster topic seen in the day.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DayTopic {
    /// The cluster label.
    pub label: String,
    /// Its keywords.
    pub keywords: Vec<String>,
    /// Visits of the day in the cluster.
    pub visits: u64,
}

/// Everything kept of one day.
#[derive(Debug, Clone)]
pub struct Day {
    /// The local date.
    pub date: Date,
    /// Pages in order of first visit.
    pub pages: Vec<Page>,
    /// Searches in order.
    pub searches: Vec<Search>,
    /// Topics in order of first appearance.
    pub topics: Vec<DayTopic>,
    /// Kept visits, repeats included.
    pub visits: u64,
    page_index: HashMap<String, usize>,
    search_seen: HashSet<String>,
    topic_index: HashMap<i64, usize>,
}

impl Day {
    /// An empty day.
    pub fn new(date: Date) -> Self {
        Day {
            date,
            pages: vec![],
            searches: vec![],
            topics: vec![],
            visits: 0,
            page_index: HashMap::new(),
            search_seen: HashSet::new(),
            topic_index: HashMap::new(),
        }
    }

    /// True when nothing was kept.
    pub fn is_empty(&self) -> bool {
        self.visits == 0 && self.searches.is_empty()
    }

    /// Add a kept visit.
    pub fn visit(&mut self, time: i64, domain: &str, title: &str, url: &str) {
        self.visits += 1;
        if let Some(&i) = self.page_index.get(url) {
            let p = &mut self.pages[i];
            p.count += 1;
            if p.title.is_empty() && !title.is_empty() {
                p.title = title.to_string();
            }
            return;
        }
        self.page_index.insert(url.to_string(), self.pages.len());
        self.pages.push(Page {
            first: time,
            domain: domain.to_string(),
            title: title.to_string(),
            url: url.to_string(),
            count: 1,
        });
    }

    /// Add a cleaned search; false when the day already has it (case-insensitively).
    pub fn search(&mut self, time: i64, engine: &str, terms: &str) -> bool {
        if !self.search_seen.insert(terms.to_lowercase()) {
            return false;
        }
        self.searches.push(Search {
            time,
            engine: engine.to_string(),
            terms: terms.to_string(),
        });
        true
    }

    /// Count a visit in cluster `id` (labelled `label`).
    pub fn topic(&mut self, id: i64, label: &str, keywords: &[String]) {
        if let Some(&i) = self.topic_index.get(&id) {
            self.topics[i].visits += 1;
            return;
        }
        self.topic_index.insert(id, self.topics.len());
        self.topics.push(DayTopic {
            label: label.to_string(),
            keywords: keywords.to_vec(),
            visits: 1,
        });
    }

    /// Visits per domain, most visited first (ties by name).
    pub fn domains(&self) -> Vec<(String, u64)> {
        let mut counts: HashMap<&str, u64> = HashMap::new();
        for p in &self.pages {
            *counts.entry(p.domain.as_str()).or_default() += p.count;
        }
        let mut v: Vec<(String, u64)> = counts
            .into_iter()
            .map(|(d, n)| (d.to_string(), n))
            .collect();
        v.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repeats_fold_and_searches_dedupe() {
        let mut d = Day::new(jiff::civil::date(2026, 11, 20));
        d.visit(1, "docs.rs", "", "https://docs.rs/a");
        d.visit(2, "github.com", "Repo", "https://github.com/x");
        d.visit(3, "docs.rs", "a - Rust", "https://docs.rs/a");
        assert_eq!(d.visits, 3);
        assert_eq!(d.pages.len(), 2);
        assert_eq!(
            (
                d.pages[0].count,
                d.pages[0].title.as_str(),
                d.pages[0].first
            ),
            (2, "a - Rust", 1)
        );
        assert!(d.search(1, "Google", "Rust BM25"));
        assert!(!d.search(5, "Google", "rust bm25"));
        assert_eq!(
            d.domains(),
            vec![("docs.rs".to_string(), 2), ("github.com".to_string(), 1)]
        );
    }
}
